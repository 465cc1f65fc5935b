"""Serve the reference (or any in-process implementation) as an MCP tool server over stdio.

``agenttools serve --mcp [--root DIR] [--impl pkg.mod:factory]`` lists the seven canonical tools
under their canonical names and answers ``tools/call`` with the implementation's own result:
its content blocks, ``isError``, and its whole ``details`` (``details.observation`` included) as
``structuredContent``. MCP defines ``structuredContent`` for a tool's structured result; without
an ``outputSchema`` the spec and the SDK carry any object there unvalidated, which the
implementation's free-form ``details`` needs. ``_meta`` is for protocol metadata a host may drop,
and a JSON copy of the details in a text block would change what a model reads. The kit's MCP
adapter restores ``details`` from ``structuredContent`` (the ``structured`` result builder).

MCP has no working directory: relative paths resolve against ``--root`` (default: the launch
directory), and commands run there; the server itself then leaves for ``/``. The kit's MCP
adapter starts one server per workspace with ``--root {cwd}``. The call's environment (the
kit's ``env``) arrives in the extra argument ``agenttools_env``; the kit's settings arrive
through the extra tool ``agenttools_configure`` (limit names as keys, flat or nested).

Transport limits, each answered clearly instead of breaking the connection: a string with a
lone surrogate cannot be carried (the SDK's stdio transport writes strict UTF-8 JSON), so a
result holding one is answered with a JSON-RPC error that says where it is; a fault of the call
itself (an unknown tool, a malformed ``env``) is a JSON-RPC error with the code the stdio server
would give. The ``mcp`` SDK (2.x) is imported only when the server starts.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.results import ProtocolFault

#: the extra argument that carries the call's environment (``env`` of the agenttools protocol)
ENV_ARGUMENT = "agenttools_env"
#: the extra tool that carries the kit's ``configure`` (settings in, applied settings out)
CONFIGURE_TOOL = "agenttools_configure"
INTERNAL_ERROR = -32603
#: how long a stopping server waits for calls it cancelled before cleaning up under them
SHUTDOWN_GRACE = 5.0
log = logging.getLogger("agenttools.reference.mcp")

#: the canonical tools and their arguments (docs/spec.md; docs/mcp-adapter.md, Canonical calls)
CANONICAL: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "read": (
        "Read a file: text with line numbers (paged), images, PDFs, notebooks.",
        {
            "path": "the file; relative paths are relative to the server's root",
            "offset": "the 1-based line to start from",
            "limit": "how many lines to show",
            "pages": 'PDF pages to show: "3" or "3-5"',
        },
    ),
    "write": (
        "Write a file (create or replace), atomically.",
        {"path": "the file", "content": "the whole new content"},
    ),
    "edit": (
        "Replace exact text in a file: one edit, or a list of edits applied together.",
        {
            "file_path": "the file",
            "old_string": "the text to replace",
            "new_string": "the replacement",
            "replace_all": "replace every occurrence (default: the text must be unique)",
            "edits": "a list of {old_string, new_string, replace_all?} applied in one write",
        },
    ),
    "grep": (
        "Search file contents with a regular expression (ripgrep).",
        {
            "pattern": "the regular expression (or literal text with literal=true)",
            "path": "the file or directory to search (default: the root)",
            "glob": "only files matching this glob (or a list of globs)",
            "output_mode": "files_with_matches (default), content or count",
            "literal": "treat the pattern as plain text",
            "ignore_case": "match case-insensitively",
            "context": "lines of context around each match (content mode)",
            "offset": "results to skip (0-based)",
            "limit": "results to show",
        },
    ),
    "glob": (
        "Find files by name pattern.",
        {
            "pattern": "the glob pattern",
            "path": "the directory to search (default: the root)",
            "include_ignored": "include files that .gitignore excludes",
            "sort": "the order of the results",
            "offset": "results to skip (0-based)",
            "limit": "results to show",
        },
    ),
    "bash": (
        "Run a shell command in the root directory.",
        {
            "command": "the command line",
            "timeout": "seconds before the command is stopped (may be fractional)",
            "run_in_background": "run it as a task and return at once (see task_output)",
        },
    ),
    "task_output": (
        "The output and state of a background task.",
        {
            "task_id": "the task's id, as bash returned it",
            "block": "wait for the task to end (default true)",
            "timeout": "seconds to wait at most",
        },
    ),
}


def tool_definitions(tools: list[str]) -> list[dict[str, Any]]:
    """The ``tools/list`` entries: canonical names, permissive object schemas.

    The schemas document the canonical arguments but constrain nothing (no types, no required
    names, any other key allowed): checking arguments is the implementation's behaviour under
    test, not the transport's, so a bad value must reach it as it would in process.
    """
    out = []
    for name in tools:
        described, arguments = CANONICAL.get(name, (f"The {name} tool.", {}))
        properties: dict[str, Any] = {a: {"description": d} for a, d in arguments.items()}
        properties[ENV_ARGUMENT] = {
            "description": "the environment the call acts as if it had inherited (an object of "
            "strings; absent: the server's own)"
        }
        out.append(
            {
                "name": name,
                "description": described,
                "inputSchema": {
                    "type": "object",
                    "properties": properties,
                    "additionalProperties": True,
                },
            }
        )
    out.append(
        {
            "name": CONFIGURE_TOOL,
            "description": "Set limits (settings) for later calls: limit names as keys, e.g. "
            '{"read.max_lines": 3} or {"read": {"max_lines": 3}}; answers the applied ones.',
            "inputSchema": {"type": "object", "additionalProperties": True},
        }
    )
    return out


def flat_settings(arguments: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"read": {"max_lines": 3}}`` -> ``{"read.max_lines": 3}`` (flat keys pass unchanged).

    The kit's mapping sends each setting to a target path, and a target path splits at dots.
    """
    flat: dict[str, Any] = {}
    for key, value in arguments.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flat_settings(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def lone_surrogate(value: Any, where: str) -> str | None:
    """Where a string in ``value`` holds a lone surrogate (not UTF-8 encodable), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found = lone_surrogate(key, f"{where} (a key)") or lone_surrogate(
                item, f"{where}.{key}"
            )
            if found:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = lone_surrogate(item, f"{where}[{i}]")
            if found:
                return found
    return None


class ToolServer:
    """The MCP handlers over one implementation (``call``, ``configure``, ``shutdown``)."""

    def __init__(self, tools: Any, root: str) -> None:
        self.tools = tools
        self.root = root
        answer: Any = {}
        if hasattr(tools, "initialize"):
            answer = tools.initialize({"protocol": "agenttools/2"})
        answer = answer if isinstance(answer, Mapping) else {}
        manifest = answer.get("manifest") if isinstance(answer.get("manifest"), Mapping) else {}
        assert isinstance(manifest, Mapping)
        self.name = str(answer.get("name") or manifest.get("name") or "agenttools")
        self.version = str(answer.get("version") or manifest.get("version") or "")
        declared = manifest.get("tools")
        names = declared if isinstance(declared, list) and declared else list(CANONICAL)
        order = list(CANONICAL)
        self.tool_names = sorted(
            (str(n) for n in names), key=lambda n: order.index(n) if n in order else len(order)
        )
        self.lock = threading.Lock()
        self.cancels: set[threading.Event] = set()
        self.threads: set[threading.Thread] = set()

    # ---- plain-data handlers (no SDK types: the SDK layer below wraps them)

    def configure(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        settings = flat_settings(arguments)
        answer = self.tools.configure(settings) if hasattr(self.tools, "configure") else {}
        applied = answer.get("applied", {}) if isinstance(answer, Mapping) else {}
        applied = dict(applied) if isinstance(applied, Mapping) else {}
        return {
            "content": [{"type": "text", "text": f"applied: {sorted(applied)}"}],
            "isError": False,
            "structuredContent": {"applied": applied},
        }

    def run_call(
        self, name: str, arguments: Mapping[str, Any], cancel: threading.Event
    ) -> dict[str, Any]:
        """One tool call on this thread: the MCP ``CallToolResult`` data, or a ProtocolFault."""
        args = dict(arguments)
        env = args.pop(ENV_ARGUMENT, None)
        result = self.tools.call(name, args, self.root, env, cancel)
        if not isinstance(result, Mapping):
            raise TypeError(f"the implementation answered {type(result).__name__}, not a result")
        where = lone_surrogate(result, "result")
        if where is not None:
            raise TransportLimit(
                f"the result of {name} cannot be carried over MCP: {where} holds a lone "
                "surrogate (a string that is not valid Unicode), and MCP's stdio transport is "
                "strict UTF-8 JSON"
            )
        details = result.get("details")
        answer: dict[str, Any] = {
            "content": list(result.get("content") or []),
            "isError": bool(result.get("isError", False)),
        }
        if isinstance(details, Mapping):
            answer["structuredContent"] = dict(details)
        return answer

    def track(self, cancel: threading.Event) -> None:
        with self.lock:
            self.cancels.add(cancel)
            self.threads.add(threading.current_thread())

    def untrack(self, cancel: threading.Event) -> None:
        with self.lock:
            self.cancels.discard(cancel)
            self.threads.discard(threading.current_thread())

    def stop(self) -> None:
        """Cancel every call in flight, give them ``SHUTDOWN_GRACE`` to answer, clean up."""
        with self.lock:
            cancels, threads = list(self.cancels), list(self.threads)
        for event in cancels:
            event.set()
        for thread in threads:
            thread.join(SHUTDOWN_GRACE / max(1, len(threads)))
        if hasattr(self.tools, "shutdown"):
            try:
                self.tools.shutdown()
            except Exception:
                log.error("shutdown failed", exc_info=True)


class TransportLimit(Exception):
    """An answer MCP cannot carry; the server answers a JSON-RPC error that says why."""


def _sdk() -> Any:
    """The SDK's pieces, or SystemExit naming the extra to install."""
    try:
        import anyio
        import mcp.types as types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
        from mcp.shared.exceptions import MCPError
    except ImportError as exc:
        raise SystemExit(
            f"agenttools serve --mcp: the `mcp` SDK is not installed or too old ({exc}); "
            "pip install 'pytest-agenttools[mcp]' (it needs mcp>=2)"
        ) from None
    return anyio, types, Server, stdio_server, MCPError


def build_server(handlers: ToolServer) -> tuple[Any, Any]:
    """The SDK's low-level Server with ``tools/list`` and ``tools/call`` over ``handlers``."""
    anyio, types, Server, stdio_server, MCPError = _sdk()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult.model_validate(
            {"tools": tool_definitions(handlers.tool_names)}
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        name, arguments = params.name, dict(params.arguments or {})
        if name == CONFIGURE_TOOL:
            return types.CallToolResult.model_validate(handlers.configure(arguments))
        cancel = threading.Event()

        def work() -> dict[str, Any]:
            handlers.track(cancel)
            try:
                return handlers.run_call(name, arguments, cancel)
            finally:
                handlers.untrack(cancel)

        try:
            # abandon_on_cancel: a cancel (notifications/cancelled, or the end of the session)
            # reaches the call through its event, and the call answers nobody afterwards
            answer = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancel.set()
            raise
        except ProtocolFault as exc:
            raise MCPError(exc.jsonrpc_code, str(exc)) from None
        except TransportLimit as exc:
            raise MCPError(INTERNAL_ERROR, str(exc)) from None
        except Exception as exc:
            # a served implementation's own protocol fault, recognised as the stdio server and
            # the in-process adapter recognise it: a ``jsonrpc_code``, or an UnknownToolError
            code = getattr(exc, "jsonrpc_code", None)
            if type(code) is int or type(exc).__name__ == "UnknownToolError":
                raise MCPError(code if type(code) is int else -32602, str(exc)) from None
            log.error("internal error in %s", name, exc_info=True)
            raise MCPError(
                INTERNAL_ERROR, f"{name}: internal error (details on the server's stderr)"
            ) from None
        return types.CallToolResult.model_validate(answer)

    try:
        server = Server(
            handlers.name, version=handlers.version, on_list_tools=list_tools,
            on_call_tool=call_tool,
        )  # fmt: skip
    except TypeError as exc:  # mcp 1.x registers handlers with decorators instead
        raise SystemExit(
            f"agenttools serve --mcp: this `mcp` SDK is too old ({exc}); it needs mcp>=2: "
            "pip install -U 'pytest-agenttools[mcp]'"
        ) from None
    return server, stdio_server


def serve_mcp(tools: Any = None, root: str | None = None) -> int:
    """Serve ``tools`` (the reference by default) as an MCP server on this process's stdio.

    Returns when the client closes stdin (or on SIGTERM/SIGHUP), after cancelling every call in
    flight and shutting the implementation down (its background processes and temp files).
    """
    import signal

    logging.basicConfig(stream=sys.stderr, format="agenttools serve --mcp: %(message)s")
    try:  # what servers killed before they could clean up left in the temp directory
        fsport.sweep_dead_owners()
    except Exception:
        log.error("sweeping the leftovers of dead servers failed", exc_info=True)
    if tools is None:
        from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

        tools = ReferenceTools()
    handlers = ToolServer(tools, os.path.abspath(root if root is not None else os.getcwd()))
    # Everything resolves against the root by name, never against this process's directory;
    # leaving it means that a process found working in the root is one the tools started (the
    # kit launches a per-workspace server in its workspace and looks there for leftovers).
    os.chdir("/")
    server, stdio_server = build_server(handlers)
    anyio = _sdk()[0]

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
                async with anyio.create_task_group() as group:

                    async def on_signal() -> None:
                        async for _ in signals:
                            group.cancel_scope.cancel()
                            return

                    group.start_soon(on_signal)
                    await server.run(
                        read_stream, write_stream, server.create_initialization_options()
                    )
                    group.cancel_scope.cancel()

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        handlers.stop()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)
