"""read blocks only the endless devices by name, so /dev/stdin and /proc/self/fd/0 are read."""

import os

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class EndlessOnly(ReadOps):
    def refuse_device(self, path: str) -> None:
        if path in fsport.ENDLESS_DEVICES or os.path.realpath(path) in fsport.ENDLESS_DEVICES:
            raise ToolError("device", f"Refusing to read {path}: it never ends.")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": EndlessOnly()})


BROKEN = Broken(
    caught_by={"READ-DEV-03"},
    suite_modules=["test_read"],
    create=create,
)
