"""read refuses /dev/null as a device, though it is the one device that reads as an empty file
(READ-DEV-02); everything else, the text of an empty page included, is the reference's."""

import os
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class RefusesDevNull(ReferenceTools):
    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: Any = None,
    ) -> dict[str, Any]:
        path = arguments.get("path") if isinstance(arguments, dict) else None
        if tool == "read" and isinstance(path, str) and os.path.realpath(path) == "/dev/null":
            return error_result("device", "/dev/null is a device, not a file.")
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> RefusesDevNull:
    return RefusesDevNull()


BROKEN = Broken(
    caught_by={"READ-DEV-02"},
    suite_modules=["test_read"],
    create=create,
)
