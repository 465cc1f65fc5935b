"""read refuses any file over 20 MB instead of paging it (READ-STREAM-01), as some agents' read
does; what it reads, it streams."""

import os
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

LIMIT = 20 * 1000 * 1000


class RefusesBig(ReferenceTools):
    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: Any = None,
    ) -> dict[str, Any]:
        path = arguments.get("path") if isinstance(arguments, dict) else None
        if tool == "read" and isinstance(path, str):
            full = os.path.join(cwd, path)
            if os.path.isfile(full) and os.path.getsize(full) > LIMIT:
                return error_result("too_large", f"{path} is over 20 MB; use grep or bash.")
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> RefusesBig:
    return RefusesBig()


BROKEN = Broken(
    caught_by={"READ-STREAM-01"},
    suite_modules=["test_read_paging"],
    create=create,
)
