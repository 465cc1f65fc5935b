"""bash keeps every byte a command prints in memory as well as in the file (a growing list)."""

from __future__ import annotations

import os

from pytest_agenttools.reference_impl import output_capture, tasks
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash"]
CAUGHT_BY = {"BASH-OUT-03"}


class Hoarding(output_capture.OutputCapture):
    def _move(self) -> int:
        if not hasattr(self, "hoard"):
            self.hoard: list[bytes] = []
        try:
            data = os.read(self._pipe, output_capture.CHUNK)
        except BlockingIOError:
            return -1
        self.hoard.append(data)
        os.write(self._file_fd, data)
        self.size += len(data)
        return len(data)

    def finish(self, linger: float = 0.2) -> None:
        super().finish(linger)
        self.everything = b"".join(getattr(self, "hoard", []))


def create() -> ReferenceTools:
    setattr(tasks, "OutputCapture", Hoarding)  # the defect, for this process only
    return ReferenceTools()
