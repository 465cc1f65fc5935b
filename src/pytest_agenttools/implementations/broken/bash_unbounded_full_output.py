"""bash writes the full output of a command to its temp file whatever the size (1 GiB printed:
1 GiB on disk)."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.output_capture import OutputCapture
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class WholeFile(BashOps):
    def capture(self, read_fd: int, file_max_bytes: int) -> OutputCapture:
        return OutputCapture(read_fd, file_max_bytes=1 << 62)  # the declared bound is ignored


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": WholeFile()})


BROKEN = Broken(
    caught_by={"BASH-OUT-08"},
    suite_modules=["test_bash_output_file"],
    create=create,
)
