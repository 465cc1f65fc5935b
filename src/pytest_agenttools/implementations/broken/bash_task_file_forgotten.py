"""task_output deletes a finished task's output file after showing it, then reads it again on
the next poll: the second poll of a finished task answers with an internal file error."""

from __future__ import annotations

import os

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.output_capture import OutputCapture, View
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class RereadsFile(OutputCapture):
    def view(
        self, start: int, max_size: int, max_lines: int, end: int | None = None, unit: str = "bytes"
    ) -> View:
        os.close(os.open(self.path, os.O_RDONLY))  # opens the file even when nothing is new
        return super().view(start, max_size, max_lines, end, unit)


class RereadsOps(BashOps):
    def capture(self, read_fd: int, file_max_bytes: int) -> OutputCapture:
        return RereadsFile(read_fd, file_max_bytes=file_max_bytes)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": RereadsOps()})


BROKEN = Broken(
    caught_by={"BASH-BG-06"},
    suite_modules=["test_bash_tasks"],
    create=create,
)
