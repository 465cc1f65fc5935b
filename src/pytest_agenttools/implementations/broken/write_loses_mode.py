"""write replaces the file through a temp file but forgets to copy the permission bits."""

from __future__ import annotations

import os
import threading

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps


class LosesMode(WriteOps):
    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        super().replace(target, data, None, cancel)
        os.chmod(target, 0o644)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"write": LosesMode()})


BROKEN = Broken(
    caught_by={"WRITE-MODE-01"},
    suite_modules=["test_write"],
    create=create,
)
