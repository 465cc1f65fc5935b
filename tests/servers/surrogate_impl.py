"""The reference, but a read of ``surrogate.txt`` answers with a lone surrogate in its text.

A string MCP cannot carry, in a result: ``agenttools serve --mcp --impl surrogate_impl:create``
must answer it with a JSON-RPC error that says so
(``tests/implementations/reference/test_mcp_server.py``), where the
stdio server escapes it and the in-process adapter passes it.
"""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference import ReferenceTools


class SurrogateTools(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if (
            tool == "read"
            and isinstance(arguments, dict)
            and arguments.get("path") == "surrogate.txt"
        ):
            return {**result, "content": [{"type": "text", "text": "bad \udcff name"}]}
        return result


def create() -> SurrogateTools:
    return SurrogateTools()
