"""Scripted MCP mappings: Python functions for servers a table cannot describe.

A mapping file may name ``script = "my_mapping.py"`` (relative to the mapping file). Each
``async def <tool>(call, session)`` in it (``read``, ``bash``, ``task_output`` ...) serves that
canonical tool instead of a ``[tools.NAME]`` table; ``async def configure(settings, session)``
serves the kit's ``configure``. A function may make several server calls and post-process them:
a search started and then paged, an exit code that only a follow-up call returns, an id carried
from one result into the next call. It returns ``session.result(...)`` (or a ToolResult).

``call`` is the canonical ToolCall (``tool``, ``arguments``, ``cwd``, ``env``); ``session`` is an
McpSession bound to the server that serves the call (one per workspace with ``{cwd}`` in the
server command). Cancellation reaches the function as ``asyncio.CancelledError`` inside
``await session.call(...)``: the adapter cancels the MCP request and answers with an aborted
result, so a function needs no cleanup code of its own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any

from pytest_agenttools.harness.contract import TOOLS, ToolCall, ToolResult

ScriptFunction = Callable[..., Awaitable[Any]]
_MODULES: dict[str, ModuleType] = {}


class ServerError(Exception):
    """The server answered a ``tools/call`` with a JSON-RPC error (not a tool result)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"MCP error {code}: {message}")
        self.code = code
        self.message = message


class Reply:
    """One ``tools/call`` answer, in MCP wire form, with conveniences for reading it."""

    def __init__(self, raw: Mapping[str, Any], tool: str, arguments: Mapping[str, Any]) -> None:
        self.raw = raw
        self.tool = tool
        self.arguments = arguments

    @property
    def is_error(self) -> bool:
        return bool(self.raw.get("isError", False))

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return "\n".join(
            str(b.get("text", ""))
            for b in self.raw.get("content") or []
            if isinstance(b, Mapping) and b.get("type") == "text"
        )

    @property
    def structured(self) -> Any:
        return self.raw.get("structuredContent")

    def json(self) -> Any:
        """``structuredContent``, else the text parsed as JSON; ValueError when it is neither."""
        if isinstance(self.structured, Mapping):
            return self.structured
        return json.loads(self.text)


def load_script(path: str) -> ModuleType:
    """Import the script module once per path; ValueError says what is wrong with it."""
    if path in _MODULES:
        return _MODULES[path]
    name = "agenttools_mcp_script_" + hashlib.sha1(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"script {path!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        del sys.modules[name]
        raise ValueError(f"script {path!r} does not exist") from None
    except Exception as exc:
        del sys.modules[name]
        raise ValueError(f"script {path!r} failed to import: {type(exc).__name__}: {exc}") from exc
    _MODULES[path] = module
    return module


def script_tools(path: str) -> frozenset[str]:
    """The canonical tools (and ``configure``) the script serves; each must be ``async def``."""
    module = load_script(path)
    served = set()
    for name in [*sorted(TOOLS), "configure"]:
        function = getattr(module, name, None)
        if function is None:
            continue
        if not inspect.iscoroutinefunction(function):
            raise ValueError(f"script {path!r}: {name} must be an async def (name, session)")
        served.add(name)
    if not served:
        raise ValueError(
            f"script {path!r} defines no mapping function: add async def read(call, session) "
            "(or write, edit, grep, glob, bash, task_output, configure)"
        )
    return frozenset(served)


def script_function(path: str, name: str) -> ScriptFunction:
    function: ScriptFunction = getattr(load_script(path), name)
    return function


class McpSession:
    """What a mapping function gets: calls to its server, the table mapping, private state."""

    def __init__(
        self,
        call_tool: Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any]]],
        mapped: Callable[[ToolCall], Awaitable[tuple[str, dict[str, Any], Reply]]],
        finish: Callable[[ToolCall, Reply], ToolResult],
        state: dict[str, Any],
        tmp: str,
    ) -> None:
        self._call_tool = call_tool
        self._mapped = mapped
        self._finish = finish
        #: kept for the life of this server (task ids, how much output was shown ...)
        self.state = state
        #: the directory the kit makes workspaces in (``{tmp}``)
        self.tmp = tmp

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Reply:
        """``tools/call``; a JSON-RPC error answer raises ServerError."""
        raw = await self._call_tool(tool, arguments)
        return Reply(raw, tool, arguments)

    async def mapped(self, call: ToolCall) -> Reply:
        """The call as the ``[tools.NAME]`` table of the mapping file sends it (one call)."""
        return (await self._mapped(call))[2]

    def finish(self, call: ToolCall, reply: Reply) -> ToolResult:
        """The table's post-processing and observation builder applied to ``reply``."""
        return self._finish(call, reply)

    @staticmethod
    def result(
        text: str,
        *,
        is_error: bool = False,
        observation: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """A kit result: one text block, ``isError``, and ``details.observation``."""
        extra = dict(details or {})
        if observation is not None:
            extra["observation"] = dict(observation)
        return ToolResult(
            content=({"type": "text", "text": text},), is_error=is_error, details=extra
        )
