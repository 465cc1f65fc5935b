"""read stats the path without handling odd names: a lone surrogate or an over-long name ends
in the runtime's exception text instead of a clear error."""

import os

from pytest_agenttools.reference_impl.read import ReadOps
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_read"]
CAUGHT_BY = {"READ-ARG-05"}


class StatOnly(ReadOps):
    def exists(self, path: str) -> bool:
        try:
            os.lstat(path)
        except FileNotFoundError:
            return False
        return True


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": StatOnly()})
