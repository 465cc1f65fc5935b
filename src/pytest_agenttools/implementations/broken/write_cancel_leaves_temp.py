"""A cancelled write stops between chunks but leaves its temp file behind."""

from __future__ import annotations

import os
import threading

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps


class LeavesTemp(WriteOps):
    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        tmp = fsport.temp_path(target)
        with open(tmp, "wb") as handle:
            for at in range(0, len(data), fsport.WRITE_CHUNK):
                if cancel is not None and cancel.is_set():
                    raise ToolError("aborted", f"The write of {target} was cancelled.")
                handle.write(data[at : at + fsport.WRITE_CHUNK])
        os.chmod(tmp, mode if mode is not None else 0o644)
        os.replace(tmp, target)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"write": LeavesTemp()})


BROKEN = Broken(
    caught_by={"WRITE-CANCEL-01"},
    suite_modules=["test_write"],
    create=create,
)
