"""read stats the path without handling odd names and reports the failure as Python renders
it: an over-long name or component ends in ``[Errno 36] File name too long: '...'`` instead of
a clear error.

A NUL or a lone surrogate never gets this far (the shared argument layer refuses them); what
fails is read's own handling of what the operating system refuses.
"""

import os

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class StatOnly(ReadOps):
    def exists(self, path: str) -> bool:
        try:
            os.lstat(path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise ToolError("os_error", f"Cannot read {path}: {exc}") from None
        return True


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": StatOnly()})


BROKEN = Broken(
    caught_by={"READ-ARG-05"},
    suite_modules=["test_read"],
    create=create,
)
