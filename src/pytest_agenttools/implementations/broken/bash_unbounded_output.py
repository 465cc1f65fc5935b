"""bash keeps every byte a command prints in memory as well as in the file (a growing list)."""

from __future__ import annotations

import os

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import output_capture
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Hoarding(output_capture.OutputCapture):
    def _move(self) -> int:
        if not hasattr(self, "hoard"):
            self.hoard: list[bytes] = []
        try:
            data = os.read(self._pipe, output_capture.CHUNK)
        except BlockingIOError:
            return -1
        self.hoard.append(data)
        view = memoryview(data)
        while view:
            view = view[os.write(self._file_fd, view) :]
        with self._lock:
            self.size += len(data)
            self._file_len += len(data)
            if self._file_len >= self._head + self._note + 2 * self._window:
                self._compact()
        return len(data)

    def finish(self, linger: float = 0.2) -> None:
        super().finish(linger)
        self.everything = b"".join(getattr(self, "hoard", []))


class HoardingOps(BashOps):
    def capture(self, read_fd: int, file_max_bytes: int) -> output_capture.OutputCapture:
        return Hoarding(read_fd, file_max_bytes=file_max_bytes)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": HoardingOps()})


BROKEN = Broken(
    caught_by={"BASH-OUT-03"},
    suite_modules=["test_bash_output_file"],
    create=create,
)
