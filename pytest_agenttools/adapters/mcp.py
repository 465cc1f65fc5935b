"""Check any MCP tool server: canonical calls go through a mapping file to ``tools/call``.

The server runs as a stdio subprocess driven by the official ``mcp`` SDK (``ClientSession`` over
``stdio_client``) on a private asyncio loop in a background thread, so the kit stays synchronous:
``submit`` returns a PendingCall backed by a concurrent future, and ``cancel`` cancels the asyncio
task (the SDK then sends ``notifications/cancelled``). The SDK is imported only when an adapter is
created, never when the plugin loads.

The mapping file (TOML, see ``docs/mcp-adapter.md``) says which MCP tool serves each canonical tool,
how argument names translate (including into list items, ``edits[0].oldText``), which arguments
are paths to resolve against the call's ``cwd``, and the manifest. ``{tmp}`` in the command stands
for the real path of the directory the kit makes its workspaces in, so a server that only serves
allowed directories can be pointed at it. Every error is an AdapterError naming the adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import shlex
import tempfile
import threading
import tomllib
from collections.abc import Mapping
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

import pluggy

from ..contract import TOOLS, ContractViolation, Manifest, ToolCall, ToolResult
from .base import AdapterError, ProtocolError, deadline_for
from .stdio import resolve_program

TMP_PLACEHOLDER = "{tmp}"
INITIALIZE_TIMEOUT = 30.0
SHUTDOWN_TIMEOUT = 10.0
CANCEL_GRACE = 5.0
STDERR_BYTES = 4000
hookimpl = pluggy.HookimplMarker("pytest")
CONNECTION_CLOSED = -32000  # the SDK's code for "the connection to the server closed"

MAPPING_KEYS = frozenset({"manifest", "tools"})
TOOL_KEYS = frozenset({"tool", "arguments", "paths", "drop", "fixed", "items"})
_SEGMENT = re.compile(r"^(?P<name>[^.\[\]]+)(?P<indexes>(?:\[\d+\])*)$")


def temp_root() -> str:
    """Where the kit makes its workspaces (``AGENTTOOLS_TMPDIR`` or the system temp dir), real."""
    return os.path.realpath(os.environ.get("AGENTTOOLS_TMPDIR") or tempfile.gettempdir())


def parse_target(target: str) -> tuple[str | int, ...]:
    """``edits[0].oldText`` -> ``("edits", 0, "oldText")``; ValueError says what is wrong."""
    steps: list[str | int] = []
    for segment in target.split("."):
        match = _SEGMENT.match(segment)
        if not match:
            raise ValueError(
                f"bad target {target!r}: use names joined by '.', each optionally followed by "
                "list indexes like [0] (for example 'edits[0].oldText')"
            )
        steps.append(match["name"])
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", match["indexes"]))
    return tuple(steps)


class TranslationConflict(Exception):
    """Two canonical arguments would write the same MCP value."""


_HOLE = object()  # a list slot no argument has filled (sent as null)


def _place(
    root: dict[str, Any],
    steps: tuple[str | int, ...],
    value: Any,
    owner: str,
    owners: dict[Any, str],
) -> None:
    for other_steps, other in owners.items():
        shorter = min(len(steps), len(other_steps))
        if steps[:shorter] == other_steps[:shorter]:
            raise TranslationConflict(f"{other} and {owner}")
    node: Any = root
    for step, following in itertools.pairwise(steps):
        fresh: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            if not isinstance(node, list):
                raise TranslationConflict(f"{owner} and an argument that is not a list")
            node.extend([_HOLE] * (step + 1 - len(node)))
            if node[step] is _HOLE:
                node[step] = fresh
            node = node[step]
        else:
            if not isinstance(node, dict):
                raise TranslationConflict(f"{owner} and an argument that is not an object")
            node = node.setdefault(step, fresh)
        if type(node) is not type(fresh):
            raise TranslationConflict(f"{owner} and an argument of another shape")
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list):
            raise TranslationConflict(f"{owner} and an argument that is not a list")
        node.extend([_HOLE] * (last + 1 - len(node)))
        node[last] = value
    else:
        if not isinstance(node, dict):
            raise TranslationConflict(f"{owner} and an argument that is not an object")
        node[last] = value
    owners[steps] = owner


def _fill_holes(value: Any) -> Any:
    if isinstance(value, list):
        return [None if v is _HOLE else _fill_holes(v) for v in value]
    if isinstance(value, dict):
        return {k: _fill_holes(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class ToolMapping:
    """How one canonical tool becomes one MCP ``tools/call``."""

    canonical: str
    tool: str
    arguments: Mapping[str, tuple[str | int, ...]]
    paths: frozenset[str] = frozenset()
    drop: frozenset[str] = frozenset()
    fixed: Mapping[str, Any] | None = None
    items: Mapping[str, Mapping[str, str]] | None = None

    def translate(self, arguments: Mapping[str, Any], cwd: str) -> dict[str, Any]:
        """Canonical arguments, in the call's order, to MCP arguments (or TranslationConflict)."""
        out: dict[str, Any] = {}
        owners: dict[Any, str] = {}
        for name, raw in arguments.items():
            if name in self.drop:
                continue
            value = raw
            if name in self.paths and isinstance(value, str) and value:
                value = os.path.join(cwd, value)
            renames = (self.items or {}).get(name)
            if renames and isinstance(value, list):
                value = [
                    {renames.get(k, k): v for k, v in item.items()}
                    if isinstance(item, Mapping)
                    else item
                    for item in value
                ]
            _place(out, self.arguments.get(name, (name,)), value, name, owners)
        out.update(self.fixed or {})
        return _fill_holes(out)


@dataclass(frozen=True)
class McpMapping:
    """A parsed mapping file: the manifest table and one ToolMapping per canonical tool."""

    source: str
    manifest: Mapping[str, Any]
    tools: Mapping[str, ToolMapping]


def _strings(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where} must be a list of strings")
    return frozenset(value)


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table")
    return value


def parse_mapping(data: Mapping[str, Any], source: str = "mapping") -> McpMapping:
    """Validate mapping data (the TOML file, parsed); ValueError names the bad key."""
    unknown = set(data) - MAPPING_KEYS
    if unknown:
        raise ValueError(
            f"unknown top-level keys {sorted(unknown)} (known: {sorted(MAPPING_KEYS)})"
        )
    manifest = dict(_table(data.get("manifest", {}), "[manifest]"))
    if "settings" in manifest:
        raise ValueError(
            "[manifest] declares settings, but an MCP server has no configure method; remove them"
        )
    tools: dict[str, ToolMapping] = {}
    for canonical, raw in _table(data.get("tools", {}), "[tools]").items():
        where = f"[tools.{canonical}]"
        if canonical not in TOOLS:
            raise ValueError(f"{where}: {canonical!r} is not a canonical tool ({sorted(TOOLS)})")
        table = _table(raw, where)
        extra = set(table) - TOOL_KEYS
        if extra:
            raise ValueError(f"{where}: unknown keys {sorted(extra)} (known: {sorted(TOOL_KEYS)})")
        name = table.get("tool")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: 'tool' (the MCP tool's name) must be a non-empty string")
        targets: dict[str, tuple[str | int, ...]] = {}
        for arg, target in _table(table.get("arguments", {}), f"{where} arguments").items():
            if not isinstance(target, str):
                raise ValueError(f"{where} arguments.{arg} must be a string")
            try:
                targets[arg] = parse_target(target)
            except ValueError as exc:
                raise ValueError(f"{where} arguments.{arg}: {exc}") from None
        items: dict[str, dict[str, str]] = {}
        for arg, renames in _table(table.get("items", {}), f"{where} items").items():
            renames = _table(renames, f"{where} items.{arg}")
            if not all(isinstance(v, str) for v in renames.values()):
                raise ValueError(f"{where} items.{arg}: every value must be a string (a key name)")
            items[arg] = dict(renames)
        tools[canonical] = ToolMapping(
            canonical=canonical,
            tool=name,
            arguments=targets,
            paths=_strings(table.get("paths", []), f"{where} paths"),
            drop=_strings(table.get("drop", []), f"{where} drop"),
            fixed=dict(_table(table.get("fixed", {}), f"{where} fixed")),
            items=items,
        )
    if not tools:
        raise ValueError("maps no tool: add a [tools.read] (or write, edit, ...) table")
    return McpMapping(source=source, manifest=manifest, tools=tools)


def load_mapping(path: str | os.PathLike[str]) -> McpMapping:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AdapterError(f"MCP adapter: no mapping file {str(path)!r}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise AdapterError(
            f"MCP adapter: mapping file {str(path)!r} is not valid TOML: {exc}"
        ) from exc
    try:
        return parse_mapping(data, source=str(path))
    except ValueError as exc:
        raise AdapterError(f"MCP adapter: mapping file {str(path)!r}: {exc}") from None


def _block_text(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "audio":
        return (
            f"[audio {block.get('mimeType', '?')}, {len(str(block.get('data', '')))} base64 chars]"
        )
    if kind == "resource_link":
        return f"[resource link {block.get('uri', '?')}]"
    if kind == "resource":
        resource = block.get("resource") if isinstance(block.get("resource"), Mapping) else {}
        assert isinstance(resource, Mapping)
        if isinstance(resource.get("text"), str):
            return str(resource["text"])
        return (
            f"[resource {resource.get('uri', '?')} ({resource.get('mimeType', '?')}), "
            f"{len(str(resource.get('blob', '')))} base64 chars]"
        )
    return f"[{kind} block]"


def convert_result(raw: Mapping[str, Any]) -> ToolResult:
    """An MCP CallToolResult (wire form) -> the kit's ToolResult.

    Text and image blocks pass as they are; audio, embedded resources and resource links become a
    text block (an embedded text resource its text, the others a one-line description), since the
    contract knows text and image only. ``details`` is ``structuredContent`` when it is an object.
    """
    blocks: list[dict[str, Any]] = []
    for block in raw.get("content") or []:
        if not isinstance(block, Mapping):
            raise ContractViolation(f"an MCP content block must be an object, got {block!r:.80}")
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block.get("text")})
        elif kind == "image":
            blocks.append(
                {"type": "image", "data": block.get("data"), "mimeType": block.get("mimeType")}
            )
        else:
            blocks.append({"type": "text", "text": _block_text(block)})
    structured = raw.get("structuredContent")
    return ToolResult.from_wire(
        {
            "content": blocks,
            "isError": bool(raw.get("isError", False)),
            "details": dict(structured) if isinstance(structured, Mapping) else {},
        }
    )


def _rpc_error(exc: BaseException) -> tuple[int, str] | None:
    """``(code, message)`` when the SDK raised for a JSON-RPC error answer (mcp 1.x and 2.x)."""
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    if isinstance(code, int):
        return code, str(getattr(error, "message", exc))
    return None


def unencodable(value: Any, where: str = "arguments") -> str | None:
    """Where a string in ``value`` cannot be UTF-8 (a lone surrogate), or None.

    The SDK's stdio transport writes strict UTF-8: such a string would break the connection
    instead of reaching the server, so the adapter refuses the call first.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found = unencodable(item, f"{where}.{key}")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = unencodable(item, f"{where}[{i}]")
            if found:
                return found
    return None


def _unwrap(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


class _Connection:
    """One running server and its ClientSession, living in one task on the adapter's loop."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        # The server's stderr; closed by the adapter once the connection is closed.
        errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.errlog = cast(TextIO, errlog)
        self.session: Any = None
        self.failure: str | None = None
        self.task: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._final_stderr: str | None = None

    def stderr_text(self) -> str:
        """The server's last stderr output, for error messages (kept after the log is closed)."""
        if self._final_stderr is not None:
            return self._final_stderr
        try:
            fd = self.errlog.fileno()
            size = os.fstat(fd).st_size
            tail = os.pread(fd, STDERR_BYTES, max(0, size - STDERR_BYTES))
        except (OSError, ValueError):
            return self._final_stderr or ""
        text = tail.decode("utf-8", "replace").strip()
        return f"\n--- last stderr output ---\n{text}" if text else "\n(no stderr output)"

    def close_log(self) -> None:
        self._final_stderr = self.stderr_text()
        with contextlib.suppress(Exception):
            self.errlog.close()

    async def run(self, ready: asyncio.Future[Any]) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self._closing = asyncio.Event()
        params = StdioServerParameters(
            command=self.argv[0], args=self.argv[1:], env=dict(os.environ)
        )
        try:
            async with (
                stdio_client(params, errlog=self.errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                init = await session.initialize()
                tools = await _list_tools(session)
                self.session = session
                if not ready.done():
                    ready.set_result((_dump(init), tools))
                await self._closing.wait()
        except BaseException as exc:  # reported through ready and failure
            inner = _unwrap(exc)
            self.failure = self.failure or f"{type(inner).__name__}: {inner}"
            if isinstance(exc, asyncio.CancelledError):
                ready.cancel()
                raise
            if not ready.done():
                ready.set_exception(inner if isinstance(inner, Exception) else exc)
        finally:
            self.failure = self.failure or "the connection was closed"

    async def aclose(self) -> None:
        if self._closing is not None:
            self._closing.set()
        if self.task is not None and not self.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.task), SHUTDOWN_TIMEOUT)
            except (TimeoutError, asyncio.CancelledError, Exception):
                self.task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(self.task, SHUTDOWN_TIMEOUT)


def _dump(model: Any) -> dict[str, Any]:
    dumped = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(dumped) if isinstance(dumped, dict) else {}


async def _list_tools(session: Any) -> list[str]:
    """Every tool name the server lists, following pagination (mcp 2.x and 1.x call styles)."""
    names: list[str] = []
    cursor: str | None = None
    for _ in range(100):
        if cursor is None:
            page = await session.list_tools()
        else:
            import mcp.types as types

            try:
                page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            except TypeError:
                page = await session.list_tools(cursor=cursor)
        dumped = _dump(page)
        names += [str(t.get("name")) for t in dumped.get("tools", [])]
        cursor = dumped.get("nextCursor")
        if not cursor:
            break
    return names


class _Pending:
    def __init__(
        self,
        adapter: McpAdapter,
        connection: _Connection,
        future: Future[dict[str, Any]],
        call: ToolCall,
        target: str,
    ) -> None:
        self._adapter = adapter
        self._connection = connection
        self._future = future
        self._call = call
        self._target = target
        self._cancelled = False

    def result(self, timeout: float | None = None) -> ToolResult:
        deadline = timeout if timeout is not None else self._adapter.deadline_for(self._call)
        try:
            raw = self._future.result(deadline)
        except FutureCancelled:
            return self._adapter.aborted(self._call)
        except FutureTimeout:
            self.cancel()
            # Whatever the call started may still run in the server: later calls get a new one.
            self._adapter.retire(self._connection)
            raise AdapterError(
                f"{self._adapter.describe()}: no answer to {self._call.describe()} (MCP tool "
                f"{self._target!r}) within {deadline:.0f} s; it was cancelled and the server "
                f"restarted (raise --agenttools-call-timeout if it is just slow)"
                f"{self._connection.stderr_text()}"
            ) from None
        except Exception as exc:
            raise self._adapter.fault(exc, self._connection, self._call, self._target) from exc
        try:
            return convert_result(raw).with_call(self._call)
        except ContractViolation as exc:
            raise AdapterError(
                f"{self._adapter.describe()}: {self._call.describe()} (MCP tool {self._target!r}) "
                f"answered with a result the kit cannot carry: {exc}"
            ) from exc

    def cancel(self) -> None:
        if not self._future.done():
            self._cancelled = True
            self._future.cancel()

    def done(self) -> bool:
        return self._future.done()


class McpAdapter:
    """The MCP client adapter: ``--agenttools-mcp COMMAND --agenttools-mcp-mapping FILE``."""

    def __init__(
        self,
        command: str,
        mapping: McpMapping | Mapping[str, Any] | str | os.PathLike[str],
        manifest_override: Mapping[str, Any] | None = None,
        call_timeout: float = 60.0,
    ) -> None:
        self.command = command
        argv = shlex.split(command)
        if not argv:
            raise AdapterError(
                "--agenttools-mcp is empty; give the command that starts your MCP server"
            )
        try:
            import mcp  # noqa: F401 (fail here, with advice, rather than inside the loop)
        except ImportError as exc:
            raise AdapterError(
                f"MCP adapter `{command}`: the `mcp` SDK is not installed ({exc}); "
                "pip install 'pytest-agenttools[mcp]'"
            ) from exc
        root = temp_root()
        self.argv = [arg.replace(TMP_PLACEHOLDER, root) for arg in argv]
        self.argv[0] = resolve_program(self.argv[0])
        if isinstance(mapping, McpMapping):
            self.mapping = mapping
        elif isinstance(mapping, Mapping):
            try:
                self.mapping = parse_mapping(mapping)
            except ValueError as exc:
                raise AdapterError(f"{self.describe()}: mapping: {exc}") from None
        else:
            self.mapping = load_mapping(mapping)
        self._override = manifest_override
        self.call_timeout = call_timeout
        self._lock = threading.Lock()
        self._connection: _Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.restarts = 0
        self.server_tools: list[str] = []

    def describe(self) -> str:
        return f"MCP adapter `{self.command}`"

    def deadline_for(self, call: ToolCall) -> float:
        return deadline_for(call, self.call_timeout)

    def request(self, method: str, params: Any = None) -> Any:
        """MCP servers answer tool calls only: no extra protocol method can be sent."""
        raise ProtocolError(
            f"{self.describe()}: an MCP server has no agenttools method {method!r}", -32601
        )

    # ---- the private event loop

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, daemon=True, name="agenttools-mcp-loop"
            )
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def _spawn(self) -> tuple[_Connection, dict[str, Any], list[str]]:
        loop = self._ensure_loop()
        connection = _Connection(self.argv)

        async def opener() -> Any:
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            connection.task = asyncio.ensure_future(connection.run(ready))
            return await asyncio.wait_for(asyncio.shield(ready), INITIALIZE_TIMEOUT)

        future = asyncio.run_coroutine_threadsafe(opener(), loop)
        try:
            init, tools = future.result(INITIALIZE_TIMEOUT + 5)
        except (TimeoutError, FutureTimeout):
            self._close_connection(connection)
            raise AdapterError(
                f"{self.describe()}: the server did not finish the MCP initialize handshake "
                f"within {INITIALIZE_TIMEOUT:g} s{connection.stderr_text()}"
            ) from None
        except Exception as exc:
            self._close_connection(connection)
            raise AdapterError(
                f"{self.describe()}: could not start the server and initialize an MCP session "
                f"({type(exc).__name__}: {exc}){connection.stderr_text()}"
            ) from exc
        return connection, init, tools

    def _close_connection(self, connection: _Connection) -> None:
        if self._loop is not None and self._loop.is_running():
            future = asyncio.run_coroutine_threadsafe(connection.aclose(), self._loop)
            with contextlib.suppress(Exception):
                future.result(2 * SHUTDOWN_TIMEOUT + 5)
        connection.close_log()

    def _live(self) -> _Connection:
        with self._lock:
            connection = self._connection
            if (
                connection is None
                or connection.session is None
                or connection.task is None
                or (connection.task.done())
            ):
                if connection is not None:
                    self.restarts += 1
                    threading.Thread(
                        target=self._close_connection, args=(connection,), daemon=True
                    ).start()
                connection, _, _ = self._spawn()
                self._connection = connection
            return connection

    def retire(self, connection: _Connection) -> None:
        """Stop using ``connection``; it is closed in the background, the next call starts anew."""
        with self._lock:
            if self._connection is not connection:
                return
            self._connection = None
            self.restarts += 1
        threading.Thread(target=self._close_connection, args=(connection,), daemon=True).start()

    # ---- the Adapter protocol

    def start(self) -> Manifest:
        with self._lock:
            connection, init, tools = self._spawn()
            self._connection = connection
        self.server_tools = tools
        missing = {
            canonical: m.tool for canonical, m in self.mapping.tools.items() if m.tool not in tools
        }
        if missing:
            self.close()
            shown = ", ".join(f"{c} -> {t!r}" for c, t in sorted(missing.items()))
            raise AdapterError(
                f"{self.describe()}: the mapping {self.mapping.source} names MCP tools the server "
                f"does not list ({shown}); it lists: {', '.join(tools) or 'no tools'}"
            )
        info = init.get("serverInfo") if isinstance(init.get("serverInfo"), dict) else {}
        assert isinstance(info, dict)
        base: dict[str, Any] = {
            "name": str(info.get("name") or "mcp-server"),
            "version": str(info.get("version") or "unknown"),
            "tools": sorted(self.mapping.tools),
            "output": {"line_numbers": "none"},
        }
        base.update(self.mapping.manifest)
        try:
            manifest = Manifest.from_wire(base, source=f"mapping file {self.mapping.source}")
            if self._override:
                manifest = manifest.merged_with(self._override)
        except ContractViolation:
            self.close()
            raise
        unmapped = manifest.tools - set(self.mapping.tools)
        if unmapped:
            self.close()
            raise AdapterError(
                f"{self.describe()}: [manifest] declares tools {sorted(unmapped)} but the mapping "
                f"{self.mapping.source} has no [tools.NAME] table for them"
            )
        return manifest

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """MCP has no configure method: nothing is applied."""
        return {}

    def translate(self, call: ToolCall) -> tuple[str, dict[str, Any]]:
        """The MCP tool name and arguments for a canonical call; ProtocolError when impossible."""
        mapping = self.mapping.tools.get(call.tool)
        if mapping is None:
            raise ProtocolError(
                f"{self.describe()}: the mapping {self.mapping.source} maps no MCP tool for the "
                f"canonical tool {call.tool!r} (mapped: {', '.join(sorted(self.mapping.tools))})",
                -32602,
            )
        if not isinstance(call.arguments, Mapping):
            raise ProtocolError(
                f"{self.describe()}: {call.tool} arguments must be an object to be translated, "
                f"got {type(call.arguments).__name__}",
                -32602,
            )
        bad = unencodable(call.arguments)
        if bad:
            raise ProtocolError(
                f"{self.describe()}: {call.describe()} cannot be sent: {bad} holds a lone "
                "surrogate, which the MCP stdio transport (strict UTF-8 JSON) cannot carry",
                -32602,
            )
        try:
            return mapping.tool, mapping.translate(call.arguments, call.cwd)
        except TranslationConflict as exc:
            raise ProtocolError(
                f"{self.describe()}: {call.describe()} cannot be sent to MCP tool "
                f"{mapping.tool!r}: the canonical arguments {exc} map onto the same MCP value "
                f"(mapping {self.mapping.source})",
                -32602,
            ) from None

    def submit(self, call: ToolCall) -> _Pending:
        target, arguments = self.translate(call)
        connection = self._live()
        session = connection.session

        async def invoke() -> dict[str, Any]:
            return _dump(await session.call_tool(target, arguments))

        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(invoke(), self._loop)
        return _Pending(self, connection, future, call, target)

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def aborted(self, call: ToolCall) -> ToolResult:
        return ToolResult(
            call=call,
            content=(
                {
                    "type": "text",
                    "text": f"{call.tool} was cancelled: the client sent notifications/cancelled "
                    "(an MCP server sends no result for a cancelled request)",
                },
            ),
            is_error=True,
            details={"cancelled": True},
        )

    def fault(
        self, exc: BaseException, connection: _Connection, call: ToolCall, target: str
    ) -> AdapterError:
        """The AdapterError for an exception out of ``call_tool``."""
        inner = _unwrap(exc)
        rpc = _rpc_error(inner)
        where = f"{self.describe()}: {call.describe()} (MCP tool {target!r})"
        if rpc is not None and rpc[0] != CONNECTION_CLOSED:
            return ProtocolError(f"{where}: JSON-RPC error {rpc[0]}: {rpc[1]}", rpc[0])
        if (
            rpc is not None
            or connection.task is None
            or connection.task.done()
            or (_is_transport_error(inner))
        ):
            self.retire(connection)
            return AdapterError(
                f"{where}: the connection to the server broke ({type(inner).__name__}: {inner}); "
                f"the next call starts a new server{connection.stderr_text()}"
            )
        return AdapterError(
            f"{where}: the MCP SDK raised {type(inner).__name__}: {inner}{connection.stderr_text()}"
        )

    def close(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            self._close_connection(connection)
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(SHUTDOWN_TIMEOUT)
            if not loop.is_running():
                loop.close()


def _is_transport_error(exc: BaseException) -> bool:
    try:
        import anyio
    except ImportError:  # pragma: no cover (anyio comes with mcp)
        return isinstance(exc, OSError)
    return isinstance(
        exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
    )


def from_settings(settings: Mapping[str, Any]) -> McpAdapter | None:
    if not settings.get("mcp"):
        return None
    return McpAdapter(
        settings["mcp"],
        settings["mcp_mapping"],
        settings.get("manifest"),
        settings.get("call_timeout", 60.0),
    )


@hookimpl
def pytest_agenttools_make_adapter(config: Any, settings: dict[str, Any]) -> McpAdapter | None:
    """``--agenttools-mcp`` with ``--agenttools-mcp-mapping``: an MCP tool server."""
    return from_settings(settings)
