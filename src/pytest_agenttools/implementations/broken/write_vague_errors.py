"""write's errors say only that it failed: no argument, no path, nothing to act on."""

from __future__ import annotations

import copy
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class VagueErrors(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != "write" or not result["isError"]:
            return result
        out = copy.deepcopy(result)
        out["content"] = [{"type": "text", "text": "Error: the write failed."}]
        return out


def create() -> VagueErrors:
    return VagueErrors()


BROKEN = Broken(
    caught_by={"WRITE-PRES-02", "WRITE-PRES-03"},
    suite_modules=["test_write"],
    create=create,
)
