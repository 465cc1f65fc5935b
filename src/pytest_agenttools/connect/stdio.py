"""Speak the agenttools stdio protocol to one long-lived child process.

A reader thread matches answers to requests by id, so calls overlap freely. Whatever the child
does wrong ends the affected requests with an AdapterError that names the command and shows its
last stderr lines, within the deadline of the request; the next request starts a fresh child.
The harness survives any child:

- it crashes: a watcher thread waits on the process itself, so an exit is seen at once even
  while a grandchild still holds the child's stdout; the answers the child wrote before it died
  are still read, and its last stderr lines are read before the error is built;
- it writes garbage, JSON nested too deep to parse, a line longer than ``max_line_bytes``, an
  error with a code that is not an integer, or an answer to an id nobody asked: the child is
  stopped and the error says what it wrote;
- it stops reading its stdin: requests are written by a writer thread, so a request larger than
  the pipe buffer never blocks the caller beyond its deadline;
- it floods stderr: only a bounded tail is kept (``STDERR_LINES`` lines of at most
  ``STDERR_LINE_BYTES`` bytes each).

Stopping a child kills its whole process group (and, while it still lives, every descendant,
which may have left the group), whether or not the child itself is still alive. A child that
exits without being asked to cannot clean up after itself, so its orphans (found by a marker
variable in their environment, ``MARKER_VARIABLE``, which a process only loses by clearing its
environment) are killed too. ``close`` ends every child this adapter ever started, including one
retired after a call overran its deadline; a child that shut down cleanly answers for its own
background processes (BASH-SHUT-01), so only what is left in its process group is killed, and
listed in ``leftovers``.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import os
import queue
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from pytest_agenttools.connect.base import (
    AdapterError,
    ProtocolError,
    call_params,
    deadline_for,
    manifest_from_initialize,
    result_from_wire,
    wait_within,
)
from pytest_agenttools.harness.contract import PROTOCOL, Manifest, ToolCall, ToolResult, wire_value
from pytest_agenttools.harness.tracebacks import kit_frame

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

INITIALIZE_TIMEOUT = 30.0
SHUTDOWN_GRACE = 5.0
CANCEL_GRACE = 5.0
#: after the child exits: how long its last answers and stderr lines may take to arrive
EXIT_DRAIN = 1.0
STDERR_LINES = 50
STDERR_LINE_BYTES = 2000
#: the longest answer line read; a longer one is a protocol fault of the child
MAX_LINE_BYTES = 64 * 1024 * 1024
#: how much of a bad stdout line an error shows
SHOWN_BYTES = 200
#: set in every child's environment (inherited by its descendants) to find its orphans
MARKER_VARIABLE = "PYTEST_AGENTTOOLS_CHILD"


def encode_line(message: Mapping[str, Any]) -> bytes:
    """One JSON line in UTF-8; strings with lone surrogates fall back to ``\\uXXXX`` escapes."""
    try:
        return (json.dumps(message, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def resolve_program(program: str) -> str:
    """Find a bare program name on PATH, then beside this interpreter (an unactivated venv)."""
    if os.sep in program:
        return program
    found = shutil.which(program) or shutil.which(program, path=os.path.dirname(sys.executable))
    return found or program


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def shown(raw: bytes) -> str:
    """The start of a bad line, readable in an error message."""
    text = raw[:SHOWN_BYTES].decode("utf-8", "replace")
    more = f" ... ({len(raw)} bytes)" if len(raw) > SHOWN_BYTES else ""
    return f"{text!r}{more}"


def marked_processes(marker: str) -> list[int]:
    """Processes whose environment holds ``MARKER_VARIABLE=marker`` (Linux ``/proc``; other
    systems find none)."""
    entry = f"\0{MARKER_VARIABLE}={marker}\0".encode()
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/environ", "rb") as handle:
                    environ = b"\0" + handle.read()
            except OSError:
                continue
            if entry in environ:
                found.append(int(name))
    return found


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid``."""
    members = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError):
                    if os.getpgid(int(name)) == pgid:
                        members.append(int(name))
    return members


class StderrTail:
    """The last lines of a child's stderr, bounded in lines and in bytes per line.

    A 100 MB line costs ``line_bytes``: the rest of it is counted, not kept.
    """

    def __init__(self, lines: int = STDERR_LINES, line_bytes: int = STDERR_LINE_BYTES) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=lines)
        self.line_bytes = line_bytes
        self.partial = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        with self.lock:
            *complete, rest = data.split(b"\n")
            for piece in complete:
                self._extend(piece)
                self.lines.append(self._line())
                self.partial, self.dropped = bytearray(), 0
            self._extend(rest)

    def _extend(self, piece: bytes) -> None:
        room = max(0, self.line_bytes - len(self.partial))
        self.partial += piece[:room]
        self.dropped += max(0, len(piece) - room)

    def _line(self) -> str:
        line = self.partial.decode("utf-8", "replace").rstrip("\r")
        return line + (f" [... {self.dropped} more bytes]" if self.dropped else "")

    def text(self) -> str:
        with self.lock:
            lines = list(self.lines)
            if self.partial or self.dropped:
                lines.append(self._line())
        tail = "\n".join(lines)
        return f"\n--- last stderr lines ---\n{tail}" if tail else "\n(no stderr output)"


_CLOSED = object()


class _Child:
    """One running child and its threads. Dead children are replaced, never revived."""

    def __init__(
        self,
        argv: list[str],
        describe: str,
        env: Mapping[str, str] | None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.describe = describe
        self.max_line_bytes = max_line_bytes
        self.stderr = StderrTail()
        self.pending: dict[int, Future[Any]] = {}
        self.lock = threading.Lock()
        self.failure: str | None = None
        #: while a raw exchange waits, answers that match no request go here
        self.raw: queue.Queue[Any] | None = None
        self.exited = threading.Event()
        self.stdout_done = threading.Event()
        self.stderr_done = threading.Event()
        self.outbox: queue.Queue[bytes | Iterable[bytes] | None] = queue.Queue()
        #: bytes queued for the child's stdin and not yet taken by it
        self.backlog = 0
        #: items in the outbox or being written by the writer thread; while there are none, a
        #: sender writes its line itself (one thread hand-off less per call), under write_lock
        self.queued = 0
        self.write_lock = threading.Lock()
        #: set before the harness asks the child to stop: its exit is then no failure to clean
        #: up after
        self.stopping = False
        self.marker = f"{os.getpid()}-{id(self):x}-{time.monotonic_ns():x}"
        environ = dict(env if env is not None else os.environ)
        environ[MARKER_VARIABLE] = self.marker
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=environ,
            )
        except OSError as exc:
            raise AdapterError(f"{describe}: cannot start the command: {exc}") from exc
        self.pid = self.proc.pid
        assert self.proc.stdin is not None
        self.stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(self.stdin_fd, False)  # neither a sender nor the writer ever blocks on it
        for target, name in (
            (self._read_stdout, "stdout"),
            (self._read_stderr, "stderr"),
            (self._write_stdin, "stdin"),
            (self._watch_exit, "exit"),
        ):
            threading.Thread(target=target, daemon=True, name=f"agenttools-{name}").start()

    def alive(self) -> bool:
        return self.failure is None and self.proc.poll() is None

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_bytes(encode_line({"jsonrpc": "2.0", **message}))

    def send_bytes(self, data: bytes | Iterable[bytes]) -> None:
        """Bytes for the child's stdin, in order: written here at once when nothing is queued
        before them and the pipe takes them whole without waiting, else queued for the writer
        thread (which never blocks for long on a child that stops reading)."""
        with self.write_lock:
            if isinstance(data, bytes) and self.queued == 0 and self.failure is None:
                try:
                    written = os.write(self.stdin_fd, data)
                except OSError:  # full (or closed: the writer thread says so)
                    written = 0
                if written == len(data):
                    return
                data = data[written:]
            if isinstance(data, bytes):
                with self.lock:
                    self.backlog += len(data)
            self.queued += 1
            self.outbox.put(data)

    def stderr_text(self) -> str:
        return self.stderr.text()

    def fail(self, why: str) -> None:
        """Mark the child broken, fail every pending request, and stop it."""
        with self.lock:
            if self.failure is None:
                self.failure = why
            pending, self.pending = self.pending, {}
            raw = self.raw
        if pending or raw is not None:
            error = AdapterError(f"{self.describe}: {why}{self.stderr_text()}")
            for future in pending.values():
                if not future.done():
                    future.set_exception(error)
            if raw is not None:
                raw.put(_CLOSED)
        self.outbox.put(None)
        self.kill()

    def kill(self) -> None:
        """Kill the child's descendants and its process group, alive or not, and reap it; if it
        ended without being asked to, its orphans too."""
        if self.proc.poll() is None:
            import psutil  # the harness's plugin module stays cheap to import

            with contextlib.suppress(psutil.Error):
                for process in psutil.Process(self.pid).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        process.kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if not self.stopping:
            self.kill_orphans()

    def kill_orphans(self) -> None:
        for pid in marked_processes(self.marker):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def close_pipes(self) -> None:
        self.outbox.put(None)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]

    # --- threads -------------------------------------------------------------------------

    def _watch_exit(self) -> None:
        code = self.proc.wait()
        self.exited.set()
        # Whatever is left of its group (a grandchild holding the pipes) goes with it; the
        # answers and stderr lines it wrote before it died are still in the pipes.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        if not self.stopping:
            self.kill_orphans()
        self.stdout_done.wait(EXIT_DRAIN)
        self.stderr_done.wait(EXIT_DRAIN)
        self.fail(f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}")

    def _read_stdout(self) -> None:
        try:
            self._read_answers()
        except Exception as exc:  # the reader must never die silently
            self.fail(f"broke the harness's reader ({type(exc).__name__}: {exc})")
        finally:
            self.stdout_done.set()
        if not self.exited.wait(EXIT_DRAIN) and self.failure is None:
            self.fail("closed its stdout but is still running")

    def _read_answers(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            raw = stream.readline(self.max_line_bytes + 1)
            if not raw:
                return
            if len(raw) > self.max_line_bytes and not raw.endswith(b"\n"):
                self.fail(
                    f"wrote an answer line longer than {self.max_line_bytes} bytes: {shown(raw)}"
                )
                return
            if not raw.strip():
                continue
            try:
                message = json.loads(raw.decode("utf-8"), parse_constant=_not_json)
                if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                    raise ValueError("not a JSON-RPC 2.0 object")
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
                self.fail(f"wrote a line to stdout that is not JSON-RPC ({reason}): {shown(raw)}")
                return
            if not self._deliver(message, raw):
                return

    def _deliver(self, message: dict[str, Any], raw: bytes) -> bool:
        """Hand one answer to its request; False when the child had to be stopped."""
        ident = message.get("id")
        with self.lock:
            future = self.pending.pop(ident, None) if type(ident) is int else None
            waiting = self.raw
        if future is None:
            if "method" in message and "id" not in message:
                return True  # a notification from the child (a log line): nothing to match
            if waiting is not None:
                waiting.put(message)
                return True
            if self.failure is not None:
                return True
            if "error" in message and ident is None:
                self.fail(f"reported a protocol error: {shown(raw)}")
            else:
                self.fail(f"answered an id that matches no request in flight: {shown(raw)}")
            return False
        if "error" not in message:
            future.set_result(message.get("result"))
            return True
        error = message["error"] if isinstance(message["error"], dict) else {}
        code, text = error.get("code"), error.get("message")
        text = text[:2000] if isinstance(text, str) else repr(text)[:200]
        if type(code) is not int:
            future.set_exception(
                AdapterError(
                    f"{self.describe}: answered request {ident} with an error whose code is not "
                    f"an integer ({shown(json.dumps(code).encode())}): {text}"
                )
            )
        else:
            future.set_exception(
                ProtocolError(f"{self.describe}: JSON-RPC error {code}: {text}", code)
            )
        return True

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        try:
            while True:
                data = os.read(fd, 65536)
                if not data:
                    return
                self.stderr.feed(data)
        except OSError:
            return
        finally:
            self.stderr_done.set()

    def _write_stdin(self) -> None:
        fd = self.stdin_fd
        while True:
            item = self.outbox.get()
            if item is None:
                return
            for chunk in [item] if isinstance(item, bytes) else item:
                if not self._write(fd, chunk):
                    return
            with self.write_lock:
                self.queued -= 1

    def _write(self, fd: int, chunk: bytes) -> bool:
        """Write one chunk without ever blocking for long: a child that stops reading is
        noticed by the caller's deadline, and this thread ends when the child is stopped."""
        view = memoryview(chunk)
        while view:
            if self.failure is not None:
                return False
            try:
                with self.write_lock:  # never between the pieces of a sender's own line
                    written = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.1)
                continue
            except OSError as exc:
                if not self.exited.wait(EXIT_DRAIN + 1):
                    self.fail(f"closed its stdin ({exc.strerror}) while still running")
                return False
            view = view[written:]
            with self.lock:
                self.backlog = max(0, self.backlog - written)
        return True


class _Pending:
    def __init__(
        self, adapter: StdioAdapter, child: _Child, ident: int, future: Future[Any], call: ToolCall
    ) -> None:
        self._adapter, self._child, self._id, self._future, self._call = (
            adapter,
            child,
            ident,
            future,
            call,
        )
        self._deadline = adapter.deadline_for(call)
        self._due = time.monotonic() + self._deadline

    def result(self, timeout: float | None = None) -> ToolResult:
        """The answer; without ``timeout``, within the call's deadline (armed at submit)."""
        deadline, wait = wait_within(self._deadline, self._due, timeout)
        try:
            raw = self._future.result(wait)
        except FutureTimeout:
            self.cancel()
            try:
                raw = self._future.result(CANCEL_GRACE)
            except FutureTimeout:
                unread = self._child.backlog
                wedged = (
                    f"; it has not read {unread} bytes of the requests sent to its stdin"
                    if unread
                    else ""
                )
                self._child.fail(
                    f"gave no answer to {self._call.describe()} within {deadline:g} s, nor "
                    f"{CANCEL_GRACE:g} s after a cancel{wedged}; the child was stopped"
                )
                raise AdapterError(
                    f"{self._adapter.describe()}: no answer to {self._call.describe()} within "
                    f"{deadline:g} s{wedged} (raise --agenttools-call-timeout if it is just slow)"
                    f"{self._child.stderr_text()}"
                ) from None
            # The call overran its deadline: whatever it started may still run inside the
            # child (a read of /dev/zero that keeps growing), so later tests get a new child.
            # What it answered to the cancel is not its answer to the call: the call fails, as
            # it does in process (a hang must not pass as an error result).
            self._adapter.recycle(self._child)
            late = result_from_wire(raw, self._call, self._adapter.describe())
            raise AdapterError(
                f"{self._adapter.describe()}: no answer to {self._call.describe()} within "
                f"{deadline:g} s; it answered only after the kit's cancel "
                f"(isError={str(late.is_error).lower()}, text {late.text[:200]!r})"
            ) from None
        return result_from_wire(raw, self._call, self._adapter.describe())

    def cancel(self) -> None:
        if not self._future.done():
            self._child.send({"method": "$/cancelRequest", "params": {"id": self._id}})

    def done(self) -> bool:
        return self._future.done()


class StdioAdapter:
    """A stdio implementation server, started on first use and restarted after a failure.

    ``send_raw`` writes bytes exactly as given (the robustness clauses send lines a correct
    client never would); ``end_input`` closes the child's stdin and waits for it to exit.
    """

    transport = "stdio"

    def __init__(
        self,
        command: str,
        manifest_override: Mapping[str, Any] | None = None,
        call_timeout: float = 60.0,
        env: Mapping[str, str] | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise AdapterError(
                "--agenttools-cmd is empty; give the command that starts your server"
            )
        self.argv[0] = resolve_program(self.argv[0])
        self._override = manifest_override
        self.call_timeout = call_timeout
        self._env = env
        self.max_line_bytes = max_line_bytes
        self._ids = itertools.count(1)
        self._child: _Child | None = None
        self._children: list[_Child] = []
        self._lock = threading.Lock()
        self._raw_lock = threading.Lock()
        self.restarts = 0
        #: how many of those restarts replaced a child the harness retired after a call overran
        self.retired = 0
        #: processes still in a child's process group after it shut down (then killed)
        self.leftovers: list[int] = []

    def describe(self) -> str:
        return f"stdio adapter `{self.command}`"

    def deadline_for(self, call: ToolCall) -> float:
        return deadline_for(call, self.call_timeout)

    def fresh(self) -> StdioAdapter:
        """Another adapter for the same command: a private child for a test that ends it."""
        return StdioAdapter(
            self.command,
            self._override,
            self.call_timeout,
            self._env,
            max_line_bytes=self.max_line_bytes,
        )

    @property
    def pid(self) -> int | None:
        """The process id of the running child, if one runs."""
        child = self._child
        return child.pid if child is not None and child.alive() else None

    def _request(self, child: _Child, method: str, params: Any) -> tuple[int, Future[Any]]:
        ident = next(self._ids)
        future: Future[Any] = Future()
        with child.lock:
            if child.failure:
                future.set_exception(AdapterError(f"{self.describe()}: {child.failure}"))
                return ident, future
            child.pending[ident] = future
        message: dict[str, Any] = {"id": ident, "method": method}
        if params is not None:
            message["params"] = params
        child.send(message)
        return ident, future

    def _spawn(self) -> tuple[_Child, Manifest]:
        child = _Child(self.argv, self.describe(), self._env, self.max_line_bytes)
        self._children = [c for c in self._children if c.proc.poll() is None]
        self._children.append(child)
        _, future = self._request(child, "initialize", {"protocol": PROTOCOL})
        deadline = min(INITIALIZE_TIMEOUT, self.call_timeout)
        try:
            answer = future.result(deadline)
        except FutureTimeout:
            child.fail(f"did not answer initialize within {deadline:g} s")
            raise AdapterError(
                f"{self.describe()}: no answer to initialize within {deadline:g} s"
                f"{child.stderr_text()}"
            ) from None
        except AdapterError:
            child.fail("failed during initialize")
            raise
        try:
            manifest = manifest_from_initialize(answer, self._override, describe=self.describe())
        except AdapterError:
            child.fail("gave an unusable initialize answer")
            raise
        return child, manifest

    def start(self) -> Manifest:
        with self._lock:
            self._child, manifest = self._spawn()
        return manifest

    def _live_child(self) -> _Child:
        with self._lock:
            if self._child is None or not self._child.alive():
                if self._child is not None:
                    self.restarts += 1
                self._child, _ = self._spawn()
            return self._child

    def recycle(self, child: _Child) -> None:
        """Retire ``child`` once its pending requests are answered; the next call starts anew."""
        with self._lock:
            if self._child is child:
                self._child = None
                self.restarts += 1
                self.retired += 1
        threading.Thread(target=self._retire, args=(child,), daemon=True).start()

    def _retire(self, child: _Child) -> None:
        for future in list(child.pending.values()):
            with contextlib.suppress(Exception):
                future.exception(timeout=self.call_timeout)
        child.fail("retired after a call overran its deadline")

    def _answer(self, child: _Child, method: str, future: Future[Any], timeout: float) -> Any:
        try:
            return future.result(timeout)
        except FutureTimeout:
            child.fail(f"did not answer {method} within {timeout:g} s")
            raise AdapterError(
                f"{self.describe()}: no answer to {method} within {timeout:g} s"
                f"{child.stderr_text()}"
            ) from None

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        child = self._live_child()
        wire = wire_value(dict(settings), what="configure settings")
        _, future = self._request(child, "configure", {"settings": wire})
        answer = self._answer(child, "configure", future, self.call_timeout)
        applied = answer.get("applied", {}) if isinstance(answer, dict) else {}
        return dict(applied) if isinstance(applied, dict) else {}

    def request(self, method: str, params: Any = None) -> Any:
        """Send an extra protocol method (``bash/analyze`` ...) and return its result."""
        child = self._live_child()
        _, future = self._request(child, method, wire_value(params, what=f"{method} params"))
        return self._answer(child, method, future, self.call_timeout)

    def submit(self, call: ToolCall) -> _Pending:
        child = self._live_child()
        ident, future = self._request(child, "call", call_params(call, self.describe()))
        return _Pending(self, child, ident, future, call)

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def send_raw(
        self, data: bytes | Iterable[bytes], *, answers: int = 1, timeout: float = 10.0
    ) -> list[Any]:
        """Write ``data`` to the child's stdin exactly as given and return the next ``answers``
        messages that match no request of this adapter, in arrival order (fewer when the
        timeout passes or the child dies first; check ``pid`` and ``restarts``), and any more
        that had already arrived when they were in: a message the exchange saw is never dropped,
        so a stray answer is judged however the threads were scheduled.

        ``data`` is a whole line or an iterable of chunks (a line of a gigabyte need not sit
        in memory); nothing is added, not even the newline. Use ids this adapter never sends
        (it numbers its own requests 1, 2, 3 ...): strings, or negative numbers.
        """
        child = self._live_child()
        received: list[Any] = []
        with self._raw_lock:
            inbox: queue.Queue[Any] = queue.Queue()
            with child.lock:
                child.raw = inbox
            try:
                child.send_bytes(data)
                due = time.monotonic() + timeout
                while len(received) < answers:
                    try:
                        item = inbox.get(timeout=max(0.0, due - time.monotonic()))
                    except queue.Empty:
                        break
                    if item is _CLOSED:
                        break
                    received.append(item)
            finally:
                with child.lock:
                    child.raw = None
            while not inbox.empty():
                item = inbox.get_nowait()
                if item is not _CLOSED:
                    received.append(item)
        return received

    def end_input(self, timeout: float = 10.0) -> int | None:
        """Close the child's stdin (as a client that goes away does) and wait for it to exit;
        its exit status, or None if it still runs after ``timeout`` (it is then killed)."""
        with self._lock:
            child, self._child = self._child, None
        if child is None:
            return None
        child.stopping = True
        child.outbox.put(None)
        time.sleep(0.05)  # let the writer finish what is queued before the pipe closes
        with contextlib.suppress(Exception):
            child.proc.stdin.close()  # type: ignore[union-attr]
        try:
            return child.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            child.fail("its stdin was closed")
            child.close_pipes()

    def close(self) -> None:
        """Shut the child down (kill it after ``SHUTDOWN_GRACE``), then end every process this
        adapter started: retired children, process groups, descendants that outlived their
        parent's shutdown."""
        with self._lock:
            child, self._child = self._child, None
            others = [c for c in self._children if c is not child]
            self._children = []
        for other in others:
            other.fail("closed with the adapter")
            other.close_pipes()
        if child is None:
            return
        if child.alive():
            child.stopping = True
            _, future = self._request(child, "shutdown", None)
            with contextlib.suppress(Exception):
                future.result(SHUTDOWN_GRACE)
            try:
                child.proc.wait(timeout=SHUTDOWN_GRACE)
            except subprocess.TimeoutExpired:
                child.stopping = False  # it did not stop: treat it as any broken child
        self.leftovers += [pid for pid in group_members(child.pid) if pid != child.pid]
        child.fail("closed with the adapter")
        child.close_pipes()


def from_settings(settings: Mapping[str, Any]) -> StdioAdapter | None:
    if not settings.get("cmd"):
        return None
    return StdioAdapter(
        settings["cmd"], settings.get("manifest"), settings.get("call_timeout", 60.0)
    )
