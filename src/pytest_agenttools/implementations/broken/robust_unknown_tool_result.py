"""Answers a call to a tool it does not have with an ordinary error result instead of JSON-RPC
error -32602, so a host cannot tell a misspelt tool name from a tool that ran and failed."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class UnknownToolResult(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        if not (isinstance(tool, str) and tool in self.tools):
            return error_result("invalid_argument", "There is no such tool.")
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> UnknownToolResult:
    return UnknownToolResult()


BROKEN = Broken(
    caught_by={"ROBUST-TOOL-01"},
    suite_modules=["test_robust"],
    create=create,
)
