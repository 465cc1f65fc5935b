"""Helpers for the bash clauses: process bookkeeping with psutil, caps, tasks, process trees.

Commands under test record the pids of what they start in a file of the workspace (``echo $$ >>
pids``); ``survivors`` then checks those pids and, as a safety net, every process whose working
directory is inside the workspace, so an unrecorded descendant is caught too.

Everything here judges the observation (``bash_obs``) and the process table, never the text.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import select
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from hypothesis import strategies as st

from pytest_agenttools import Manifest, ToolCall, ToolClient, ToolResult
from pytest_agenttools.connect.base import DefersCleanup
from pytest_agenttools.connect.inprocess import InProcessAdapter, serve_argv
from pytest_agenttools.harness.assertions import bash_obs
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.observations import BashObservation

#: a TERM-ignoring process must be gone this long after a timeout when no grace is declared
UNDECLARED_GRACE_S = 10.0
#: what a probe for an undeclared view cap prints, and the most a bounded view may show of it
PROBE_VIEW_BYTES = 64 << 20
PROBE_VIEW_LINES = 1_000_000
SANE_VIEW_BYTES = 4 << 20
#: a timeout far beyond any sane cap
HUGE_TIMEOUT_S = 10**9
#: advice not to run a command again, in the words tools use for it (BASH-PRES-06)
RERUN_ADVICE = re.compile(
    r"re-?run|run (?:it|this|the command|that command) again|(?:run|execute) again|"
    r"repeat(?:ing)? (?:it|the command)|re-?execut",
    re.IGNORECASE,
)


# --- processes -------------------------------------------------------------------------------


def recorded_pids(root: Path, name: str = "pids") -> list[int]:
    path = root / name
    if not path.exists():
        return []
    return [int(word) for word in path.read_text().split() if word.isdigit()]


def is_alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def processes_in(root: Path) -> list[int]:
    """Live processes whose working directory is ``root`` or below it."""
    prefix = str(root.resolve())
    found = []
    for proc in psutil.process_iter(["cwd", "status"]):
        cwd = proc.info.get("cwd")
        inside = bool(cwd) and (cwd == prefix or cwd.startswith(prefix + os.sep))
        if inside and proc.info.get("status") != psutil.STATUS_ZOMBIE and proc.pid != os.getpid():
            found.append(proc.pid)
    return found


#: the longest a survivor check waits, however slow the machine: the probes sleep 60 s, and a
#: wait that outlasts them would see a survivor end by itself and call that a clean kill
SETTLE_CAP_S = 30.0


def survivors(root: Path, pids: Iterable[int] = (), settle: float = 0.3) -> list[int]:
    """Recorded pids and workspace processes still alive (``settle`` s for reaping races,
    widened on a slow machine up to ``SETTLE_CAP_S``)."""
    pids = list(pids)
    deadline = time.monotonic() + min(scaled(settle), max(settle, SETTLE_CAP_S))
    while True:
        alive = sorted({p for p in pids if is_alive(p)} | set(processes_in(root)))
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def describe(pids: Iterable[int]) -> str:
    shown = []
    for pid in pids:
        with contextlib.suppress(psutil.Error, OSError):
            proc = psutil.Process(pid)
            shown.append(f"{pid} {proc.cmdline()} ppid={proc.ppid()} sid={os.getsid(pid)}")
    return "; ".join(shown) or "(none)"


def kill_all(pids: Iterable[int]) -> None:
    """Clean up after a test that leaves processes on purpose (or after a failure)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def implementation_processes(tools: ToolClient) -> set[int]:
    """The implementation's own processes now: its server (over stdio or MCP) and what runs
    under it. Taken before a call, none of them is something the call started; a server that
    works in the workspace (``chdir`` for a command) is no survivor of the command."""
    pid = getattr(tools.adapter, "pid", None)
    if not pid:
        return set()
    try:
        server = psutil.Process(pid)
        return {pid, *(p.pid for p in server.children(recursive=True))}
    except psutil.Error:
        return {pid}


def expect_no_survivor(
    root: Path,
    what: str,
    settle: float = 0.3,
    name: str = "pids",
    spare: Iterable[int] = (),
) -> None:
    """No recorded process and no process working in ``root`` is alive (the rest are killed);
    ``spare``: processes that were there before the call (``implementation_processes``)."""
    spared = set(spare)
    alive = [p for p in survivors(root, recorded_pids(root, name), settle) if p not in spared]
    shown = describe(alive)
    kill_all(alive)
    assert not alive, f"{what}: processes still alive after the call returned: {shown}"


def wait_for_file(path: Path, timeout: float = 20.0, minimum: int = 1) -> list[int]:
    """Wait until ``path`` lists at least ``minimum`` pids; return them."""
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        found = recorded_pids(path.parent, path.name)
        if len(found) >= minimum:
            return found
        time.sleep(0.02)
    return recorded_pids(path.parent, path.name)


def fast(tools: ToolClient, grace: float = 0.5) -> float:
    """A short kill grace when configurable; the grace in force (or the undeclared bound)."""
    applied = tools.configure(**{"bash.kill_grace_s": grace})
    if "bash.kill_grace_s" in applied:
        return float(applied["bash.kill_grace_s"])
    declared = tools.limit("bash.kill_grace_s")
    return float(declared.value) if declared else UNDECLARED_GRACE_S


# --- results -----------------------------------------------------------------------------------


def complete(
    tools: ToolClient, result: ToolResult, timeout: float = 60.0
) -> tuple[ToolResult, BashObservation, bool]:
    """The result that says how a command ended: ``result`` itself, or, when the command was
    handed over to the background (a soft yield), the ``task_output`` that saw it end.

    Returns the result, its observation, and whether a handover happened (a handed-over
    command's end is reported by ``task_output``, whose isError says nothing about the exit).
    """
    obs = bash_obs(result)
    if not (obs.background and obs.running and obs.task_id):
        return result, obs, False
    deadline = time.monotonic() + scaled(timeout)
    while True:
        polled = tools.call("task_output", task_id=obs.task_id, block=True, timeout=5)
        polled_obs = bash_obs(polled)
        if not polled_obs.running or time.monotonic() > deadline:
            return polled, polled_obs, True


def drain(tools: ToolClient, task_id: str, timeout: float = 30.0) -> tuple[str, list[ToolResult]]:
    """Poll ``task_id`` until it no longer runs; every observed output joined, and the results."""
    outputs: list[str] = []
    results: list[ToolResult] = []
    timeout = scaled(timeout)
    deadline = time.monotonic() + timeout
    while True:
        result = tools.call("task_output", task_id=task_id, block=True, timeout=5)
        assert not result.is_error, f"task_output failed: {result.text[:300]!r}"
        obs = bash_obs(result)
        outputs.append(shown_output(obs))
        results.append(result)
        if not obs.running:
            return "".join(outputs), results
        assert time.monotonic() < deadline, f"task {task_id} still runs after {timeout:g} s"


def shown_output(obs: BashObservation) -> str:
    """The output an observation shows, without any cut marker (head and tail when cut)."""
    if obs.truncated:
        return obs.output_head + (obs.output_tail or "")
    return obs.output


def task_id_of(result: ToolResult) -> str:
    assert not result.is_error, f"expected a task, got an error: {result.text[:300]!r}"
    obs = bash_obs(result)
    assert obs.background and obs.task_id, (
        f"the observation should say the command runs in the background as a task: {obs.raw}"
    )
    return obs.task_id


# --- output caps -------------------------------------------------------------------------------


def measure(text: str, unit: str) -> int:
    """The size of a shown text in a limit's unit."""
    return len(text) if unit == "chars" else len(text.encode("utf-8"))


def count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


@dataclass(frozen=True)
class Caps:
    """The view caps in force: ``size`` in ``unit`` and ``lines``; None where undeclared."""

    size: int | None
    unit: str
    lines: int | None


def view_caps(tools: ToolClient, size: int = 2000, lines: int = 40) -> Caps:
    """Small caps when configurable, else the declared ones (None: undeclared, to be probed)."""
    names = ("bash.output_max_bytes", "bash.output_max_lines")
    applied = tools.configure(**dict(zip(names, (size, lines), strict=True)))
    size_limit, lines_limit = (tools.limit(n) for n in names)
    unit = size_limit.unit if size_limit else "bytes"
    found = [
        int(applied[n]) if n in applied else (int(limit.value) if limit else None)
        for n, limit in zip(names, (size_limit, lines_limit), strict=True)
    ]
    return Caps(found[0], unit, found[1])


def check_cut(obs: BashObservation, printed: str, caps: Caps, what: str) -> None:
    """A cut view: exact head and tail of ``printed``, within the caps in force."""
    assert obs.truncated, f"{what}: the view should be cut, but truncated is false"
    tail, head = obs.output_tail, obs.output_head
    assert tail, (
        f"{what}: a cut view must keep the end of the output in output_tail (the tail is where "
        f"errors are); observation: {dict(obs.raw)!r:.300}"
    )
    assert printed.startswith(head), f"{what}: output_head is not a start of the output"
    assert printed.endswith(tail), f"{what}: output_tail is not an end of the output"
    assert len(head) + len(tail) < len(printed), f"{what}: a cut view must leave something out"
    if caps.size is not None:
        shown = measure(head, caps.unit) + measure(tail, caps.unit)
        assert shown <= caps.size, (
            f"{what}: {shown} {caps.unit} of output shown, but the cap is {caps.size} {caps.unit}"
        )
    if caps.lines is not None:
        lines = count_lines(head) + count_lines(tail)
        assert lines <= caps.lines, f"{what}: {lines} lines shown, but the cap is {caps.lines}"
    position = obs.output.find(head)
    assert position >= 0 and obs.output.find(tail, position + len(head)) >= 0, (
        f"{what}: the observed output should show output_head, then output_tail"
    )


# --- instances of the implementation ----------------------------------------------------------


def _hook_settings(config: Any) -> dict[str, Any]:
    from pytest_agenttools.run.session import get_session

    session = get_session(config)
    return session.settings.target(session.manifest_override).to_settings()


@contextlib.contextmanager
def second_instance(
    config: Any,
    later: Callable[[Callable[[], object]], None] | None = None,
    *,
    apart: bool = False,
) -> Iterator[Any]:
    """Another started instance of the implementation under test, shut down on exit; with
    ``apart``, in a process of its own (an in-process implementation is served from a child).

    ``later`` (a test's ``request.addfinalizer``) takes the cleanup of an adapter that sweeps
    up after the implementation (the MCP adapter kills its servers' marked processes): the
    implementation's own shutdown happens on exit and the sweep after the test has judged what
    it left, so the sweep can never make a shutdown clause pass.
    """
    adapter = config.hook.pytest_agenttools_make_adapter(
        config=config, settings=_hook_settings(config)
    )
    if apart and isinstance(adapter, InProcessAdapter):
        adapter = adapter.apart()
    adapter.start()
    try:
        yield adapter
    finally:
        if later is not None and isinstance(adapter, DefersCleanup):
            later(adapter.clean_up)
            adapter.shut_down()
        else:
            adapter.close()


class StdioHost:
    """An implementation served over the stdio protocol by a process this test owns.

    The kit's stdio adapter cleans up after a server that dies (it kills the orphans it can
    find); a test of what the implementation itself does when killed must not have that help,
    so it speaks the few JSON-RPC lines it needs on its own.
    """

    def __init__(self, argv: list[str], manifest: Manifest, timeout: float) -> None:
        # what the server says on stderr goes to a file (a pipe nobody drains could fill and
        # stall it), quoted when it dies: its own words are the first thing to read
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self.argv = argv
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=True,
        )
        self.pid = self.proc.pid
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._buffer = b""
        self.request("initialize", {"protocol": "agenttools/2"})

    def _send(self, method: str, params: Any) -> int:
        ident = next(self._ids)
        line = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc.wait(self.timeout)
            raise AssertionError(
                f"the server ({shlex.join(self.argv)}) exited before it was sent {method} "
                f"(exit status {self.proc.returncode})" + self.stderr_tail()
            ) from None
        return ident

    def request(self, method: str, params: Any) -> Any:
        ident = self._send(method, params)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                answer = json.loads(line)
                if answer.get("id") == ident:
                    return answer.get("result")
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                assert chunk, (
                    f"the server ({shlex.join(self.argv)}) exited while answering {method}"
                    + self.stderr_tail()
                )
                self._buffer += chunk
        raise AssertionError(f"the server did not answer {method} within {self.timeout:g} s")

    def stderr_tail(self, limit: int = 2000) -> str:
        """The end of what the server wrote to stderr, as a message's last part ("" if none)."""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - limit))
            text = self._stderr.read().decode("utf-8", "replace").strip()
            if text:
                return f"; its stderr ended with:\n{text}"
        return ""

    def configure(self, settings: dict[str, Any]) -> Any:
        return self.request("configure", {"settings": settings})

    def start_call(self, call: ToolCall) -> None:
        """Send the call and do not wait for it."""
        self._send("call", call.to_wire())

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout, self._stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]


class AdapterHost:
    """The kit's own adapter to a server process (MCP), and that process's pid."""

    def __init__(self, adapter: Any, pid: int | None) -> None:
        self.adapter = adapter
        #: None with a server per workspace: the server is the one the first call starts
        self._pid = pid

    @property
    def pid(self) -> int:
        assert self._pid is not None, "no call has started a server yet"
        return self._pid

    def configure(self, settings: dict[str, Any]) -> Any:
        return self.adapter.configure(settings)

    def start_call(self, call: ToolCall) -> None:
        self.adapter.submit(call)
        if self._pid is None:
            self._pid = self.adapter.server_pid(call)
            assert self._pid is not None, f"no server process serves {call.describe()}"

    def close(self) -> None:
        self.adapter.close()


@contextlib.contextmanager
def hosted_instance(config: Any) -> Iterator[StdioHost | AdapterHost]:
    """An instance whose process the test may kill: the implementation's own stdio server, an
    in-process implementation served by ``agenttools serve --impl``, or an MCP server."""
    from pytest_agenttools.connect.stdio import resolve_program

    settings = _hook_settings(config)
    timeout = float(settings["call_timeout"])
    host: StdioHost | AdapterHost
    if settings["mcp"]:
        before = {p.pid for p in psutil.Process().children()}
        adapter = config.hook.pytest_agenttools_make_adapter(config=config, settings=settings)
        adapter.start()
        if getattr(adapter, "per_workspace", False):
            # a server per workspace: the one that answered initialize has stopped; the call
            # starts the server of its workspace, whose process the test kills
            host = AdapterHost(adapter, None)
        else:
            new = [p for p in psutil.Process().children() if p.pid not in before]
            assert len(new) == 1, (
                f"expected one new server process, found {describe(p.pid for p in new)}"
            )
            host = AdapterHost(adapter, new[0].pid)
    elif settings["cmd"]:
        argv = shlex.split(settings["cmd"])
        host = StdioHost([resolve_program(argv[0]), *argv[1:]], settings["manifest"], timeout)
    else:
        spec = settings["impl"] or "pytest_agenttools.implementations.reference:create"
        host = StdioHost(serve_argv(spec), settings["manifest"], timeout)
    try:
        yield host
    finally:
        with contextlib.suppress(Exception):
            host.close()


# --- environments ------------------------------------------------------------------------------


def parse_env(text: str) -> dict[str, str]:
    """``env`` output (one NAME=value per line) as a dict; lines without ``=`` are skipped."""
    env = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and name and " " not in name:
            env[name] = value
    return env


# --- random process trees (BASH-KILL-05) -------------------------------------------------------

KINDS = ("plain", "trap", "ignore")
SPAWNS = ("child", "setsid", "doublefork", "job", "daemon", "nohup")


@dataclass
class Node:
    kind: str
    spawn: str
    children: list[Node] = field(default_factory=list)


def _nodes(depth: int) -> Any:
    leaf = st.builds(Node, st.sampled_from(KINDS), st.sampled_from(SPAWNS), st.just([]))
    if depth == 0:
        return leaf
    return st.one_of(
        leaf,
        st.builds(
            Node,
            st.sampled_from(KINDS),
            st.sampled_from(SPAWNS),
            st.lists(_nodes(depth - 1), min_size=1, max_size=3),
        ),
    )


#: forests up to four levels deep: fan-out, TERM traps, TERM-ignoring leaves and every way out
process_trees = st.lists(_nodes(3), min_size=1, max_size=3)


def render_tree(root: Path, nodes: list[Node]) -> str:
    """Write one script per node into ``root``; return the top-level command.

    Every process records its pid in ``root/pids`` (by absolute path: a daemon leaves the
    working directory for ``/``).
    """
    counter = iter(range(10_000))
    pids = root / "pids"

    def spawn_line(node: Node) -> str:
        name = root / f"n{next(counter)}.sh"
        body = [f"echo $$ >> {pids}"]
        if node.kind == "trap":
            body.append(f"trap 'echo $$ >> {root}/trapped; exit 0' TERM")
        elif node.kind == "ignore":
            body.append("trap '' TERM")
        body += [spawn_line(child) for child in node.children]
        # ``wait`` is interrupted by a signal, so a TERM trap runs at once; once the sleep is
        # gone a survivor (a test killed half-way) ends itself when its workspace is removed,
        # and polls gently meanwhile: it never spins a core on a machine that runs other work
        body += [
            f"sleep 600 & echo $! >> {pids}",
            f"while :; do wait; [ -d {root} ] || exit 0; sleep 1; done",
        ]
        name.write_text("\n".join(body) + "\n")
        if node.spawn == "setsid":
            return f"setsid bash {name} &"
        if node.spawn == "doublefork":
            return f"( bash {name} & )"
        if node.spawn == "job":
            return f"set -m; bash {name} & set +m"
        if node.spawn == "daemon":  # double fork, new session, no cwd, no stdio
            return f"( cd / && setsid bash {name} </dev/null >/dev/null 2>&1 & ) &"
        if node.spawn == "nohup":
            return f"nohup bash {name} >/dev/null 2>&1 &"
        return f"bash {name} &"

    lines = [f"echo $$ >> {pids}", *(spawn_line(node) for node in nodes), "sleep 60"]
    return "\n".join(lines)


def tree_size(nodes: list[Node]) -> int:
    return sum(1 + tree_size(node.children) for node in nodes)
