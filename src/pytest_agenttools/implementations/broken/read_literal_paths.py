"""read takes the path literally: no `~`, no `file://`, no spelling variants."""

import os
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Literal(ReadOps):
    def resolve(self, raw: str, cwd: str, env: Mapping[str, str] | None) -> tuple[str, bool]:
        return os.path.normpath(os.path.join(cwd, raw)), False


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": Literal()})


BROKEN = Broken(
    caught_by={"READ-PATH-01"},
    suite_modules=["test_read_formats"],
    create=create,
)
