"""write truncates the file and writes the new bytes into it (not atomic), under its lock."""

from __future__ import annotations

import os
import threading

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps


class InPlace(WriteOps):
    """What `fs.writeFile(path, data)` does: open with O_TRUNC, then write."""

    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        with open(target, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(target, mode)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"write": InPlace()})


BROKEN = Broken(
    caught_by={"WRITE-ATOMIC-01"},
    suite_modules=["test_write"],
    create=create,
)
