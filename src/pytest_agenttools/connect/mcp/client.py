"""Check any MCP tool server: canonical calls go through a mapping to ``tools/call``.

The server runs as a stdio subprocess driven by the official ``mcp`` SDK (``ClientSession`` over
``stdio_client``) on a private asyncio loop in a background thread, so the kit stays synchronous:
``submit`` returns a PendingCall backed by a concurrent future, and ``cancel`` cancels the asyncio
task (the SDK then sends ``notifications/cancelled``). The SDK is imported only when an adapter is
created, never when the plugin loads.

The mapping (``mcp_mapping``; TOML, ``docs/mcp-adapter.md``) says which MCP tool serves each
canonical tool and how arguments and answers translate, including the observation each result
carries (``mcp_results``); a script module (``mcp_script``) serves what a table cannot say.

Servers are kept on a short leash, because MCP has no working directory and servers write where
they are started: each runs with a private HOME and launch directory (temp dirs the adapter
creates and removes), in its own process group, marked with an environment variable its
descendants inherit. ``{cwd}`` in the command (or ``[server] directory = "workspace"``) starts
one server per workspace, launched there.
When a server is replaced (a crash, a call that timed out) or the adapter closes, the server is
shut down, every process still carrying its mark is killed, and ``close`` waits for all of it:
no server outlives the session, even one that ignores SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_futures
from typing import Any, TextIO, cast

from pytest_agenttools.connect.base import (
    AdapterError,
    ProtocolError,
    TransportLimit,
    call_params,
    deadline_for,
    result_from_wire,
    wait_within,
)
from pytest_agenttools.connect.mcp.mapping import (
    CWD_PLACEHOLDER,
    TMP_PLACEHOLDER,
    McpMapping,
    ToolMapping,
    TranslationConflict,
    load_mapping,
    parse_mapping,
    parse_target,
)
from pytest_agenttools.connect.mcp.results import convert_result, finish, prepare
from pytest_agenttools.connect.mcp.script import McpSession, Reply, ServerError, script_function
from pytest_agenttools.connect.stdio import resolve_program
from pytest_agenttools.harness.contract import (
    ContractViolation,
    Manifest,
    ToolCall,
    ToolResult,
    wire_value,
)
from pytest_agenttools.harness.observations import ALWAYS_OBSERVED
from pytest_agenttools.harness.scratch import workspace_base
from pytest_agenttools.harness.tracebacks import kit_frame

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

__all__ = [
    "McpAdapter",
    "TranslationConflict",
    "convert_result",
    "load_mapping",
    "parse_mapping",
    "parse_target",
    "temp_root",
    "unencodable",
]

INITIALIZE_TIMEOUT = 30.0
#: the deepest ``tools/call`` arguments the SDK carries: its JSON reader (client and server)
#: stops at 200 levels, and the arguments sit two levels down in the request
MAX_ARGUMENT_DEPTH = 198
SHUTDOWN_TIMEOUT = 10.0
#: how long ``close`` waits for every server to be shut down and reaped
CLOSE_TIMEOUT = 2 * SHUTDOWN_TIMEOUT + 10
STDERR_BYTES = 4000
#: per-workspace servers kept alive at once (the oldest is stopped when a new one starts)
MAX_WORKSPACE_SERVERS = 4
#: the environment variable that marks a server and everything it starts; outside the
#: ``AGENTTOOLS_*`` namespace, which an implementation removes from its commands (BASH-ENV-01),
#: so that a command's processes keep the mark too
MARK = "PYTEST_AGENTTOOLS_MCP_SERVER"
CONNECTION_CLOSED = -32000  # the SDK's code for "the connection to the server closed"


def temp_root() -> str:
    """Where the kit makes its workspaces (``scratch.workspace_base``), resolved."""
    return workspace_base()


def _rpc_error(exc: BaseException) -> tuple[int, str] | None:
    """``(code, message)`` when the SDK raised for a JSON-RPC error answer (mcp 1.x and 2.x)."""
    if isinstance(exc, ServerError):
        return exc.code, exc.message
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
            # a key is a JSON string too
            found = unencodable(key, f"{where} (a key)") or unencodable(item, f"{where}.{key}")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = unencodable(item, f"{where}[{i}]")
            if found:
                return found
    return None


def nesting_depth(value: Any) -> int:
    """How deep ``value`` nests as JSON (a scalar 0, ``[]`` or ``{}`` 1, ``[[1]]`` 2); without
    recursion, so any depth is measured."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _unwrap(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


class ScriptError(Exception):
    """The mapping script raised (its bug, not the server's answer)."""


def marked_processes(mark: str, since: float = 0.0) -> list[Any]:
    """Every live process whose environment carries ``MARK=mark`` (a server and its progeny)."""
    import psutil

    found = []
    me = os.getpid()
    for proc in psutil.process_iter(["pid", "create_time", "uids"]):
        try:
            if proc.pid == me or proc.info["create_time"] < since - 1:
                continue
            if proc.info["uids"] and proc.info["uids"].real != os.getuid():
                continue
            if proc.environ().get(MARK) == mark and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


class _Server:
    """One running server and its ClientSession, living in one task on the adapter's loop."""

    def __init__(self, argv: list[str], key: str | None, env: dict[str, str], cwd: str | None,
                 private: str) -> None:  # fmt: skip
        self.argv = argv
        self.key = key  # the workspace it serves ({cwd} in the command), or None
        self.env = env
        self.cwd = cwd
        self.private = private  # the temp dir (HOME, launch dir) removed when it is reaped
        self.mark = env[MARK]
        self.started = time.time()
        self.used = time.monotonic()
        # The server's stderr; closed once the server is reaped.
        errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.errlog = cast(TextIO, errlog)
        self.session: Any = None
        self.failure: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.state: dict[str, Any] = {}  # a mapping script's state for this server
        self.reaped = False
        self._closing: asyncio.Event | None = None
        self._final_stderr: str | None = None
        #: the server's process (this process's child carrying the mark), once it answered
        self.pid: int | None = None

    @property
    def alive(self) -> bool:
        return self.session is not None and self.task is not None and not self.task.done()

    def find_pid(self) -> None:
        """Note which child of this process is the server (the one carrying its mark)."""
        import psutil

        with contextlib.suppress(psutil.Error):
            for child in psutil.Process().children():
                with contextlib.suppress(psutil.Error):
                    if child.environ().get(MARK) == self.mark:
                        self.pid = child.pid
                        return

    @property
    def exited(self) -> bool:
        """The server's process has ended, though the session may not have noticed yet (the
        SDK learns of it from the pipe, some time after): a call sent now would fail on a death
        that happened before it, which is no doing of the call's."""
        if self.pid is None:
            return False
        import psutil

        try:
            return bool(psutil.Process(self.pid).status() == psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:
            return True
        except psutil.Error:
            return False

    def stderr_text(self) -> str:
        """The server's last stderr output, for error messages (kept after the log is closed)."""
        if self._final_stderr is not None:
            return self._final_stderr
        try:
            fd = self.errlog.fileno()
            size = os.fstat(fd).st_size
            tail = os.pread(fd, STDERR_BYTES, max(0, size - STDERR_BYTES))
        except (OSError, ValueError):
            return ""
        text = tail.decode("utf-8", "replace").strip()
        return f"\n--- last stderr output ---\n{text}" if text else "\n(no stderr output)"

    async def run(self, ready: asyncio.Future[Any]) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self._closing = asyncio.Event()
        params = StdioServerParameters(
            command=self.argv[0], args=self.argv[1:], env=self.env, cwd=self.cwd
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
        """The SDK's shutdown: stdin closed, then SIGTERM and SIGKILL to the process group."""
        if self._closing is not None:
            self._closing.set()
        if self.task is not None and not self.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.task), SHUTDOWN_TIMEOUT)
            except (TimeoutError, asyncio.CancelledError, Exception):
                self.task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(self.task, SHUTDOWN_TIMEOUT)

    def reap(self) -> None:
        """Kill whatever still carries this server's mark, wait for it, remove its temp dir.

        The SDK kills the server's process group, but a server may have started processes in
        groups of their own (a shell server's background jobs), or an old SDK may not kill the
        group at all: the mark finds them wherever they went.
        """
        if self.reaped:
            return
        import psutil

        left = marked_processes(self.mark, self.started)
        groups = set()
        for proc in left:
            with contextlib.suppress(psutil.Error, OSError):
                groups.add(os.getpgid(proc.pid))
        own = os.getpgid(0)
        for group in groups - {own}:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        for proc in left:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(left, timeout=5)
        self._final_stderr = self.stderr_text()
        with contextlib.suppress(Exception):
            self.errlog.close()
        shutil.rmtree(self.private, ignore_errors=True)
        self.reaped = True


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
        self, adapter: McpAdapter, server: _Server, future: Future[ToolResult], call: ToolCall
    ) -> None:
        self._adapter = adapter
        self._server = server
        self._future = future
        self._call = call
        self._deadline = adapter.deadline_for(call)
        self._due = time.monotonic() + self._deadline

    def result(self, timeout: float | None = None) -> ToolResult:
        """The result; without ``timeout``, within the call's deadline (armed at submit, as in
        the other adapters)."""
        deadline, wait = wait_within(self._deadline, self._due, timeout)
        target = self._adapter.target(self._call.tool)
        try:
            result = self._future.result(wait)
        except FutureCancelled:
            return self._adapter.aborted(self._call)
        except FutureTimeout:
            self.cancel()
            # Whatever the call started may still run in the server: later calls get a new one.
            self._adapter.retire(self._server, overran=True)
            raise AdapterError(
                f"{self._adapter.describe()}: no answer to {self._call.describe()} ({target}) "
                f"within {deadline:.0f} s; it was cancelled and the server restarted (raise "
                f"--agenttools-call-timeout if it is just slow){self._server.stderr_text()}"
            ) from None
        except ContractViolation as exc:
            raise AdapterError(
                f"{self._adapter.describe()}: {self._call.describe()} ({target}) answered with "
                f"a result the kit cannot carry: {exc}"
            ) from exc
        except Exception as exc:
            raise self._adapter.fault(exc, self._server, self._call, target) from exc
        # through JSON as in every adapter: the same answer gives the same result
        return result_from_wire(result.to_wire(), self._call, self._adapter.describe())

    def cancel(self) -> None:
        if not self._future.done():
            self._future.cancel()

    def done(self) -> bool:
        return self._future.done()


def _absolute_args(argv: list[str]) -> list[str]:
    """Relative paths in the command that exist from here, made absolute (the server starts in
    a private directory, where they would not resolve)."""
    out = []
    for arg in argv:
        if (
            not os.path.isabs(arg)
            and os.sep in arg
            and not arg.startswith("-")
            and os.path.exists(arg)
        ):
            arg = os.path.abspath(arg)
        out.append(arg)
    return out


class McpAdapter:
    """The MCP client adapter: ``--agenttools-mcp COMMAND --agenttools-mcp-mapping FILE``."""

    transport = "mcp"

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
        if isinstance(mapping, McpMapping):
            self.mapping = mapping
        elif isinstance(mapping, Mapping):
            try:
                self.mapping = parse_mapping(mapping)
            except ValueError as exc:
                raise AdapterError(f"{self.describe()}: mapping: {exc}") from None
        else:
            self.mapping = load_mapping(mapping)
        self.tmp = temp_root()
        #: ``{cwd}`` in the command, or ``[server] directory = "workspace"``: one server per
        #: workspace, started in it
        self.per_workspace = (
            any(CWD_PLACEHOLDER in arg for arg in argv)
            or self.mapping.server.directory == "workspace"
        )
        argv = [arg.replace(TMP_PLACEHOLDER, self.tmp) for arg in argv]
        argv[0] = resolve_program(argv[0])
        if self.per_workspace or self.mapping.server.directory == "private":
            argv = _absolute_args(argv)
        self.argv = argv
        self._override = manifest_override
        self.call_timeout = call_timeout
        self._lock = threading.Lock()
        self._servers: dict[str | None, _Server] = {}
        self._started: list[_Server] = []  # every server not yet reaped
        self._closing: set[Future[None]] = set()
        #: shut_down() in progress: servers are stopped, what they left is killed by clean_up()
        self._cleanup_deferred = False
        self._settings: dict[str, Any] = {}  # configured settings, replayed to new servers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.restarts = 0
        #: how many of those restarts replaced a server retired after a call overran
        self.retired = 0
        self.server_tools: list[str] = []
        #: canonical tools whose clauses are not run, and why (session.py asks)
        self.not_run: dict[str, str] = {}

    def describe(self) -> str:
        return f"MCP adapter `{self.command}`"

    def deadline_for(self, call: ToolCall) -> float:
        return deadline_for(call, self.call_timeout)

    def target(self, tool: str) -> str:
        """How a canonical tool is served, for messages."""
        if tool in self.mapping.scripted:
            return f"script function {tool}"
        mapping = self.mapping.tools.get(tool)
        return f"MCP tool {mapping.tool!r}" if mapping else "unmapped"

    def request(self, method: str, params: Any = None) -> Any:
        """MCP servers answer tool calls only: no extra protocol method can be sent."""
        raise ProtocolError(
            f"{self.describe()}: an MCP server has no agenttools method {method!r}", -32601
        )

    # ---- the private event loop and the servers

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, daemon=True, name="agenttools-mcp-loop"
            )
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def _server_env(self, private: str) -> dict[str, str]:
        env = dict(os.environ)
        if self.mapping.server.home == "private":
            home = os.path.join(private, "home")
            os.makedirs(home, exist_ok=True)
            env["HOME"] = home
        env[MARK] = uuid.uuid4().hex
        return env

    def _spawn(self, key: str | None) -> tuple[_Server, dict[str, Any], list[str]]:
        loop = self._ensure_loop()
        private = tempfile.mkdtemp(prefix="agt-mcp-")
        argv = [arg.replace(CWD_PLACEHOLDER, key) for arg in self.argv] if key else self.argv
        if key is not None and os.path.isdir(key):
            cwd: str | None = key
        elif key is not None or self.mapping.server.directory == "private":
            # a call whose cwd does not exist (BASH-CWD-02 sends one) still reaches a server,
            # with {cwd} naming the missing directory: the server's answer is what is judged
            cwd = os.path.join(private, "run")
            os.makedirs(cwd, exist_ok=True)
        else:
            cwd = None
        server = _Server(argv, key, self._server_env(private), cwd, private)
        self._started.append(server)

        async def opener() -> Any:
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            server.task = asyncio.ensure_future(server.run(ready))
            return await asyncio.wait_for(asyncio.shield(ready), INITIALIZE_TIMEOUT)

        future = asyncio.run_coroutine_threadsafe(opener(), loop)
        try:
            init, tools = future.result(INITIALIZE_TIMEOUT + 5)
        except (TimeoutError, FutureTimeout):
            self._shutdown(server)
            raise AdapterError(
                f"{self.describe()}: the server did not finish the MCP initialize handshake "
                f"within {INITIALIZE_TIMEOUT:g} s{server.stderr_text()}"
            ) from None
        except Exception as exc:
            self._shutdown(server)
            raise AdapterError(
                f"{self.describe()}: could not start the server and initialize an MCP session "
                f"({type(exc).__name__}: {exc}){server.stderr_text()}"
            ) from exc
        server.find_pid()
        if self._settings:
            self._run(self._apply_settings(server, self._settings), SHUTDOWN_TIMEOUT)
        return server, init, tools

    def _run(self, coroutine: Any, timeout: float) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    async def _stop(self, server: _Server) -> None:
        await server.aclose()
        if not self._cleanup_deferred:
            await asyncio.get_running_loop().run_in_executor(None, server.reap)

    def _shutdown(self, server: _Server) -> None:
        """Stop one server now and wait for it (used where the caller can wait)."""
        if self._loop is not None and self._loop.is_running():
            with contextlib.suppress(Exception):
                self._run(self._stop(server), CLOSE_TIMEOUT)
        server.reap()

    def _server_for(self, call: ToolCall) -> _Server:
        key = call.cwd if self.per_workspace else None
        with self._lock:
            server = self._servers.get(key)
            if server is not None and server.alive and not server.exited:
                server.used = time.monotonic()
                return server
            if server is not None:
                self.restarts += 1
                self._retire_locked(server)
            if key is not None:
                self._trim_locked()
            server, _, _ = self._spawn(key)
            self._servers[key] = server
            return server

    def _trim_locked(self) -> None:
        """Per-workspace servers: stop those whose workspace is gone, and the least used."""
        servers = sorted(self._servers.values(), key=lambda s: s.used)
        for server in servers:
            if server.key is not None and not os.path.isdir(server.key):
                self._retire_locked(server)
        servers = sorted(self._servers.values(), key=lambda s: s.used)
        for server in servers[: max(0, len(servers) - MAX_WORKSPACE_SERVERS + 1)]:
            self._retire_locked(server)

    def _retire_locked(self, server: _Server) -> None:
        if self._servers.get(server.key) is server:
            del self._servers[server.key]
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(self._stop(server), loop)
        self._closing.add(future)
        future.add_done_callback(self._closing.discard)

    def retire(self, server: _Server, *, overran: bool = False) -> None:
        """Stop using ``server``: it is stopped in the background (``close`` waits for it);
        ``overran``: because a call overran its deadline."""
        with self._lock:
            if self._servers.get(server.key) is not server:
                return
            self.restarts += 1
            self.retired += overran
            self._retire_locked(server)

    def server_pid(self, call: ToolCall) -> int | None:
        """The pid of the server process that serves ``call`` now (its workspace's server when
        there is one per workspace), or None when none is running."""
        import psutil

        with self._lock:
            server = self._servers.get(call.cwd if self.per_workspace else None)
        if server is None:
            return None
        for proc in marked_processes(server.mark, server.started):
            with contextlib.suppress(psutil.Error):
                if proc.ppid() == os.getpid():
                    return int(proc.pid)
        return None

    # ---- the Adapter protocol

    def start(self) -> Manifest:
        # With {cwd} in the command, the server that answers initialize runs in an empty probe
        # directory and is stopped once the manifest is known.
        probe = (
            os.path.realpath(tempfile.mkdtemp(prefix="agt-mcp-start-"))
            if self.per_workspace
            else None
        )
        server: _Server | None = None
        try:
            with self._lock:
                server, init, tools = self._spawn(probe)
                self._servers[server.key] = server
            return self._manifest(init, tools)
        except BaseException:
            self.close()
            raise
        finally:
            if probe is not None:
                if server is not None:
                    self.retire(server)
                    self._wait_closing()
                shutil.rmtree(probe, ignore_errors=True)

    def _manifest(self, init: Mapping[str, Any], tools: list[str]) -> Manifest:
        self.server_tools = tools
        wanted = {canonical: m.tool for canonical, m in self.mapping.tools.items()}
        if self.mapping.configure is not None:
            wanted["configure"] = self.mapping.configure.tool
        missing = {canonical: name for canonical, name in wanted.items() if name not in tools}
        if missing:
            shown = ", ".join(f"{c} -> {t!r}" for c, t in sorted(missing.items()))
            raise AdapterError(
                f"{self.describe()}: the mapping {self.mapping.source} names MCP tools the server "
                f"does not list ({shown}); it lists: {', '.join(tools) or 'no tools'}"
            )
        info = init.get("serverInfo") if isinstance(init.get("serverInfo"), dict) else {}
        assert isinstance(info, dict)
        served = set(self.mapping.tools) | (self.mapping.scripted - {"configure"})
        base: dict[str, Any] = {
            "name": str(info.get("name") or "mcp-server"),
            "version": str(info.get("version") or "unknown"),
            "tools": sorted(served),
            "output": {"line_numbers": "none"},
        }
        base.update(self.mapping.manifest)
        manifest = Manifest.from_wire(base, source=f"mapping file {self.mapping.source}")
        if self._override:
            manifest = manifest.merged_with(self._override)
        unmapped = manifest.tools - served
        if unmapped:
            raise AdapterError(
                f"{self.describe()}: [manifest] declares tools {sorted(unmapped)} but the mapping "
                f"{self.mapping.source} has no [tools.NAME] table or script function for them"
            )
        for tool in ("bash", "task_output"):
            if tool in manifest.tools and not self.runs_in_workspace(tool):
                self.not_run[tool] = (
                    f"{tool} through {self.describe()} would run commands in the server's own "
                    "directory, not in the test's workspace: put {cwd} in the server command "
                    f"(a server per workspace) or send {{cwd}} in an argument of [tools.{tool}] "
                    "(docs/mcp-adapter.md, Workspaces)"
                )
        return manifest

    def runs_in_workspace(self, tool: str) -> bool:
        """Whether a command of ``tool`` runs in the call's ``cwd`` (see ``not_run``)."""
        if self.per_workspace or tool in self.mapping.scripted:
            return True
        mapping = self.mapping.tools.get(tool)
        return mapping is not None and mapping.sends_cwd

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Route settings to the server's configuration tool (``[configure]`` or the script)."""
        if self.mapping.configure is None and "configure" not in self.mapping.scripted:
            return {}
        settings = wire_value(dict(settings), what="configure settings")
        self._ensure_loop()
        with self._lock:
            servers = [s for s in self._servers.values() if s.alive]
        applied: dict[str, Any] = dict(settings)
        for server in servers:
            try:
                got = self._run(self._apply_settings(server, settings), self.call_timeout)
            except Exception as exc:
                raise self.fault(exc, server, None, "configure") from exc
            applied = {k: v for k, v in applied.items() if k in got}
        self._settings.update(applied)
        return applied

    async def _apply_settings(self, server: _Server, settings: Mapping[str, Any]) -> dict[str, Any]:
        if "configure" in self.mapping.scripted:
            assert self.mapping.script is not None
            function = script_function(self.mapping.script, "configure")
            got = await function(dict(settings), self._session(server))
            return dict(got or {})
        assert self.mapping.configure is not None
        arguments = self.mapping.configure.translate(settings)
        raw = _dump(await server.session.call_tool(self.mapping.configure.tool, arguments))
        return {} if raw.get("isError") else dict(settings)

    def translate(self, call: ToolCall) -> tuple[str, dict[str, Any]]:
        """The MCP tool name and arguments for a canonical call; ProtocolError when impossible."""
        mapping = self._table(call)
        try:
            return mapping.tool, mapping.translate(
                call.arguments, call.cwd, tmp=self.tmp, env=call.env
            )
        except TranslationConflict as exc:
            raise ProtocolError(
                f"{self.describe()}: {call.describe()} cannot be sent to MCP tool "
                f"{mapping.tool!r}: the canonical arguments {exc} map onto the same MCP value "
                f"(mapping {self.mapping.source})",
                -32602,
            ) from None

    def _table(self, call: ToolCall) -> ToolMapping:
        mapping = self.mapping.tools.get(call.tool)
        if mapping is None:
            served = sorted(set(self.mapping.tools) | (self.mapping.scripted - {"configure"}))
            raise ProtocolError(
                f"{self.describe()}: the mapping {self.mapping.source} maps no MCP tool for the "
                f"canonical tool {call.tool!r} (mapped: {', '.join(served)})",
                -32602,
            )
        return mapping

    def _check(self, call: ToolCall) -> None:
        """Refuse what must not reach the server, before anything is sent."""
        if call.tool in self.not_run:
            raise ProtocolError(f"{self.describe()}: {self.not_run[call.tool]}", -32602)
        if call.tool not in self.mapping.scripted:
            self._table(call)
        if not isinstance(call.arguments, Mapping):
            raise TransportLimit(
                f"{self.describe()}: {call.describe()} cannot be sent: its arguments are "
                f"{type(call.arguments).__name__}, and MCP's tools/call carries arguments as an "
                "object only"
            )
        bad = unencodable(call.arguments)
        if bad:
            raise TransportLimit(
                f"{self.describe()}: {call.describe()} cannot be sent: {bad} holds a lone "
                "surrogate, which the MCP stdio transport (strict UTF-8 JSON) cannot carry"
            )
        self._check_depth(call, call.arguments)

    def _check_depth(self, call: ToolCall, arguments: Any) -> None:
        depth = nesting_depth(arguments)
        if depth > MAX_ARGUMENT_DEPTH:
            raise TransportLimit(
                f"{self.describe()}: {call.describe()} cannot be sent: its arguments nest "
                f"{depth} levels deep, and the MCP SDK's JSON reader stops at 200 levels in a "
                f"message (arguments at most {MAX_ARGUMENT_DEPTH}): a server built on it would "
                "never see the request"
            )

    def _session(self, server: _Server) -> McpSession:
        async def call_tool(tool: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
            try:
                return _dump(await server.session.call_tool(tool, dict(arguments)))
            except Exception as exc:
                rpc = _rpc_error(_unwrap(exc))
                if rpc is not None and rpc[0] != CONNECTION_CLOSED:
                    raise ServerError(*rpc) from exc
                raise

        async def mapped(call: ToolCall) -> tuple[str, dict[str, Any], Reply]:
            try:
                tool, arguments = self.translate(call)
            except ProtocolError:
                raise
            except Exception as exc:  # the kit's translation failed, not the script
                raise ScriptError(
                    f"the [tools.{call.tool}] table of the mapping {self.mapping.source} could "
                    f"not translate {call.describe()} (session.mapped): {type(exc).__name__}: "
                    f"{exc}"
                ) from exc
            before = prepare(self._table(call), call)  # the state the builder judges: now
            raw = await call_tool(tool, arguments)
            return tool, arguments, Reply(raw, tool, arguments, before)

        def before_call(call: ToolCall) -> dict[str, Any]:
            return prepare(self._table(call), call)

        def finish_reply(call: ToolCall, reply: Reply, before: Mapping[str, Any]) -> ToolResult:
            return finish(self._table(call), call, reply.arguments, reply.raw, before)

        return McpSession(call_tool, mapped, finish_reply, server.state, self.tmp, before_call)

    async def _serve(self, call: ToolCall, server: _Server) -> ToolResult:
        if call.tool in self.mapping.scripted:
            assert self.mapping.script is not None
            function = script_function(self.mapping.script, call.tool)
            try:
                answer = await function(call, self._session(server))
            except (ServerError, ScriptError, asyncio.CancelledError):
                raise
            except Exception as exc:
                if _rpc_error(_unwrap(exc)) is not None or _is_transport_error(_unwrap(exc)):
                    raise
                raise ScriptError(
                    f"the mapping script {self.mapping.script} raised in {call.tool}: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            if isinstance(answer, ToolResult):
                return ToolResult.from_wire(answer.to_wire())
            return ToolResult.from_wire(answer)
        mapping = self._table(call)
        tool, arguments = self.translate(call)
        before = prepare(mapping, call)
        try:
            raw = _dump(await server.session.call_tool(tool, arguments))
        except Exception as exc:
            rpc = _rpc_error(_unwrap(exc))
            if (
                rpc is not None
                and rpc[0] != CONNECTION_CLOSED
                and mapping.result.json_rpc_errors == "result"
            ):
                return finish(mapping, call, arguments, None, before, rpc)
            raise
        return finish(mapping, call, arguments, raw, before)

    def submit(self, call: ToolCall) -> _Pending:
        # The call as the wire carries it, as in every adapter (tuples become lists, NaN and
        # infinities are refused here, before anything is sent): the mapping, the script and
        # the server see the same values an implementation sees in process or over stdio.
        wire = call_params(call, self.describe())
        normal = ToolCall(wire["tool"], wire["arguments"], wire["cwd"], wire.get("env"))
        self._check(normal)
        if normal.tool not in self.mapping.scripted:
            # a conflict, or a translation nested too deep, is refused before a server starts
            self._check_depth(normal, self.translate(normal)[1])
        server = self._server_for(normal)
        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(self._serve(normal, server), self._loop)
        return _Pending(self, server, future, call)

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def aborted(self, call: ToolCall) -> ToolResult:
        details: dict[str, Any] = {"cancelled": True}
        if call.tool in ALWAYS_OBSERVED:
            details["observation"] = {"aborted": True, "running": False, "output": ""}
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
            details=details,
        )

    def fault(
        self, exc: BaseException, server: _Server, call: ToolCall | None, target: str
    ) -> AdapterError:
        """The AdapterError for an exception out of a call."""
        inner = _unwrap(exc)
        what = call.describe() if call else "configure"
        where = f"{self.describe()}: {what} ({target})"
        if isinstance(inner, ScriptError):
            return AdapterError(f"{where}: {inner}{server.stderr_text()}")
        rpc = _rpc_error(inner)
        if rpc is not None and rpc[0] != CONNECTION_CLOSED:
            return ProtocolError(f"{where}: JSON-RPC error {rpc[0]}: {rpc[1]}", rpc[0])
        if rpc is not None or not server.alive or _is_transport_error(inner):
            self.retire(server)
            return AdapterError(
                f"{where}: the connection to the server broke ({type(inner).__name__}: {inner}); "
                f"the next call starts a new server{server.stderr_text()}"
            )
        return AdapterError(
            f"{where}: the MCP SDK raised {type(inner).__name__}: {inner}{server.stderr_text()}"
        )

    def _wait_closing(self) -> None:
        pending = list(self._closing)
        if pending:
            wait_futures(pending, timeout=CLOSE_TIMEOUT)

    def shut_down(self) -> None:
        """Stop every server as an MCP host does (the SDK's shutdown: stdin closed, SIGTERM and
        SIGKILL to its process group) and wait for it, but leave what the servers left running
        alone until ``clean_up``: BASH-SHUT-02/03/04 judge what a shutdown leaves, so the
        adapter's own sweep of its marked processes must come after the verdict."""
        self._cleanup_deferred = True
        try:
            with self._lock:
                servers = list(self._servers.values())
                self._servers.clear()
                for server in servers:
                    self._retire_locked(server)
            if self._loop is not None:
                self._wait_closing()
        finally:
            self._cleanup_deferred = False

    def clean_up(self) -> None:
        """Kill what the servers left (every process carrying their mark) and close."""
        self.close()

    def close(self) -> None:
        """Stop every server this adapter started and wait until each is gone."""
        with self._lock:
            servers = list(self._servers.values())
            self._servers.clear()
            for server in servers:
                self._retire_locked(server)
        if self._loop is not None:
            self._wait_closing()
        for server in self._started:
            server.reap()  # whatever a shutdown left (or one that never ran) is killed here
        self._started = [s for s in self._started if not s.reaped]
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
