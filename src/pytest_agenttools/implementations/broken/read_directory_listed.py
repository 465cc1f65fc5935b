"""read answers a directory with a listing of its entries, as a success: a model that asked
for a file is told it read one."""

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Listing(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        path = arguments.get("path") if isinstance(arguments, dict) else None
        if tool == "read" and result["isError"] and isinstance(path, str):
            target = os.path.join(cwd, path)
            if os.path.isdir(target):
                result["isError"] = False
                result["content"] = [
                    {"type": "text", "text": "\n".join(sorted(os.listdir(target)))}
                ]
        return result


def create() -> Listing:
    return Listing()


BROKEN = Broken(
    caught_by={"READ-DIR-02"},
    suite_modules=["test_read"],
    create=create,
)
