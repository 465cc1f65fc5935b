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

import base64
import hashlib
import importlib.util
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
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

    def __init__(
        self,
        raw: Mapping[str, Any],
        tool: str,
        arguments: Mapping[str, Any],
        before: Mapping[str, Any] | None = None,
    ) -> None:
        self.raw = raw
        self.tool = tool
        self.arguments = arguments
        #: what the table's builder needed to know from before the call (``session.mapped``
        #: records it before sending; ``session.before`` for a call sent with ``session.call``)
        self.before = before

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
    def images(self) -> list[tuple[str, bytes]]:
        """``(mimeType, bytes)`` of every image block."""
        return [
            (str(b.get("mimeType")), base64.b64decode(str(b.get("data", ""))))
            for b in self.raw.get("content") or []
            if isinstance(b, Mapping) and b.get("type") == "image"
        ]

    @property
    def resources(self) -> list[tuple[str, bytes]]:
        """``(mimeType, bytes)`` of every embedded resource with a blob (a PDF, for example)."""
        found = []
        for block in self.raw.get("content") or []:
            if not isinstance(block, Mapping) or block.get("type") != "resource":
                continue
            resource = block.get("resource")
            if isinstance(resource, Mapping) and isinstance(resource.get("blob"), str):
                found.append((str(resource.get("mimeType")), base64.b64decode(resource["blob"])))
        return found

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
        finish: Callable[[ToolCall, Reply, Mapping[str, Any]], ToolResult],
        state: dict[str, Any],
        tmp: str,
        prepare: Callable[[ToolCall], dict[str, Any]] | None = None,
    ) -> None:
        self._call_tool = call_tool
        self._mapped = mapped
        self._finish = finish
        self._prepare = prepare or (lambda call: {})
        #: kept for the life of this server (task ids, how much output was shown ...)
        self.state = state
        #: the directory the kit makes workspaces in (``{tmp}``)
        self.tmp = tmp

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Reply:
        """``tools/call``; a JSON-RPC error answer raises ServerError."""
        raw = await self._call_tool(tool, arguments)
        return Reply(raw, tool, arguments)

    async def mapped(self, call: ToolCall) -> Reply:
        """The call as the ``[tools.NAME]`` table of the mapping file sends it (one call); the
        reply carries what the table's builder must know from before it (``reply.before``)."""
        return (await self._mapped(call))[2]

    def before(self, call: ToolCall) -> dict[str, Any]:
        """What the table's builder of ``call.tool`` must know from before the call (did the
        file exist, how often does ``old_string`` occur): take it before ``session.call`` and
        pass it to ``finish``. ``session.mapped`` does this itself."""
        return self._prepare(call)

    def finish(
        self, call: ToolCall, reply: Reply, before: Mapping[str, Any] | None = None
    ) -> ToolResult:
        """The table's post-processing and observation builder applied to ``reply``.

        The builders ``written`` and ``edited`` judge the file as it was before the call
        (``created``, the count of a ``replace_all``): a reply of ``session.mapped`` carries that
        state; for one of ``session.call``, pass ``before=session.before(call)`` taken before
        the call. Without it, ValueError: the state cannot be known after the call.
        """
        state = before if before is not None else reply.before
        if state is None:
            if self._prepare(call):
                raise ValueError(
                    f"session.finish({call.tool}): the {call.tool} table's builder needs the "
                    "file's state from before the call; pass before=session.before(call) taken "
                    "before session.call, or send the call with session.mapped(call)"
                )
            state = {}
        return self._finish(call, reply, state)

    @staticmethod
    def image(data: bytes | str, mime_type: str) -> dict[str, Any]:
        """An image content block: ``data`` as bytes, or already base64 (a server's block)."""
        if isinstance(data, bytes | bytearray):
            data = base64.b64encode(bytes(data)).decode("ascii")
        return {"type": "image", "data": str(data), "mimeType": str(mime_type)}

    @staticmethod
    def result(
        text: str | None = None,
        *,
        is_error: bool = False,
        observation: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
        images: Sequence[tuple[str, bytes | str]] = (),
        blocks: Sequence[Mapping[str, Any]] = (),
    ) -> ToolResult:
        """A kit result: a text block (when ``text`` is given), then an image block per
        ``(mime_type, data)`` of ``images``, then ``blocks`` as they are (text or image blocks,
        e.g. a reply's ``raw["content"]`` items); ``isError``; ``details.observation``."""
        extra = dict(details or {})
        if observation is not None:
            extra["observation"] = dict(observation)
        content: list[Mapping[str, Any]] = []
        if text is not None:
            content.append({"type": "text", "text": text})
        content.extend(McpSession.image(data, mime) for mime, data in images)
        content.extend(dict(b) for b in blocks)
        return ToolResult.from_wire({"content": content, "isError": is_error, "details": extra})

    @staticmethod
    def image_result(
        data: bytes | str,
        mime_type: str,
        *,
        text: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """A read of an image: its block (after ``text``, if given) and the image observation
        (``kind = "image"``, ``mime_type``)."""
        return McpSession.result(
            text,
            images=[(mime_type, data)],
            observation={"kind": "image", "mime_type": str(mime_type)},
            details=details,
        )

    @staticmethod
    def pdf_result(
        pages: Sequence[tuple[int, str]],
        *,
        total_pages: int | None = None,
        next_page: int | None = None,
        text: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """A read of a PDF: ``pages`` are ``(page number, extracted text)`` in the order shown;
        ``next_page`` the page to continue from when pages of the asked range were left out.
        The text shown is ``text``, else each page under a ``== Page N ==`` heading; the
        observation is the pdf one (``pages``, ``page_texts``, ``total_pages``, ``truncated``,
        ``next_offset``)."""
        shown = [(int(number), str(page)) for number, page in pages]
        observation: dict[str, Any] = {
            "kind": "pdf",
            "pages": [number for number, _ in shown],
            "page_texts": [page for _, page in shown],
            "truncated": next_page is not None,
        }
        if total_pages is not None:
            observation["total_pages"] = int(total_pages)
        if next_page is not None:
            observation["next_offset"] = int(next_page)
        body = text
        if body is None:
            body = "\n".join(f"== Page {number} ==\n{page}" for number, page in shown)
        return McpSession.result(body, observation=observation, details=details)
