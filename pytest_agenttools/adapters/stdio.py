"""Speak the agenttools stdio protocol to one long-lived child process.

A reader thread matches answers to requests by id, so calls overlap freely. Whatever the child
does wrong (crash, silence, garbage on stdout) ends the affected requests with an AdapterError
that names the command and shows its last stderr lines; the next request starts a fresh child.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pluggy

from ..contract import PROTOCOL, Manifest, ToolCall, ToolResult, wire_value
from .base import (
    AdapterError,
    ProtocolError,
    call_params,
    deadline_for,
    manifest_from_initialize,
    result_from_wire,
)

INITIALIZE_TIMEOUT = 30.0
SHUTDOWN_GRACE = 5.0
CANCEL_GRACE = 5.0
STDERR_LINES = 50
hookimpl = pluggy.HookimplMarker("pytest")


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


class _Child:
    """One running child and its reader threads. Dead children are replaced, never revived."""

    def __init__(self, argv: list[str], describe: str, env: Mapping[str, str] | None) -> None:
        self.describe = describe
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.pending: dict[int, Future[Any]] = {}
        self.lock = threading.Lock()
        self.failure: str | None = None
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            raise AdapterError(f"{describe}: cannot start the command: {exc}") from exc
        threading.Thread(target=self._read_stdout, daemon=True, name="agenttools-stdout").start()
        threading.Thread(target=self._read_stderr, daemon=True, name="agenttools-stderr").start()

    def alive(self) -> bool:
        return self.failure is None and self.proc.poll() is None

    def send(self, message: Mapping[str, Any]) -> None:
        line = encode_line({"jsonrpc": "2.0", **message})
        try:
            with self.lock:
                assert self.proc.stdin is not None
                self.proc.stdin.write(line)
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            self.fail(f"its stdin is closed ({exc}); it has probably exited")

    def stderr_text(self) -> str:
        tail = "\n".join(self.stderr_tail)
        return f"\n--- last stderr lines ---\n{tail}" if tail else "\n(no stderr output)"

    def fail(self, why: str) -> None:
        """Mark the child broken, fail every pending request, and stop it."""
        with self.lock:
            if self.failure is None:
                self.failure = why
            pending, self.pending = self.pending, {}
        error = AdapterError(f"{self.describe}: {why}{self.stderr_text()}")
        for future in pending.values():
            if not future.done():
                future.set_exception(error)
        self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw.decode("utf-8"))
                if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                    raise ValueError("not a JSON-RPC 2.0 object")
            except (UnicodeDecodeError, ValueError) as exc:
                shown = raw[:200].decode("utf-8", "replace")
                self.fail(f"wrote a line to stdout that is not JSON-RPC ({exc}): {shown!r}")
                return
            ident = message.get("id")
            with self.lock:
                future = self.pending.pop(ident, None) if isinstance(ident, int) else None
            if future is None:
                if "error" in message and ident is None:
                    self.fail(f"reported a protocol error: {message['error']}")
                    return
                continue
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                future.set_exception(
                    ProtocolError(
                        f"{self.describe}: JSON-RPC error {error.get('code')}: "
                        f"{error.get('message')}",
                        int(error.get("code", -32603)),
                    )
                )
            else:
                future.set_result(message.get("result"))
        code = self.proc.wait()
        self.fail(f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}")

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip("\n"))


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

    def result(self, timeout: float | None = None) -> ToolResult:
        deadline = timeout if timeout is not None else self._adapter.deadline_for(self._call)
        try:
            raw = self._future.result(deadline)
        except FutureTimeout:
            self.cancel()
            try:
                raw = self._future.result(CANCEL_GRACE)
            except FutureTimeout:
                self._child.fail(
                    f"gave no answer to {self._call.describe()} within {deadline:.0f} s, nor "
                    f"{CANCEL_GRACE:.0f} s after a cancel; the child was stopped"
                )
                raise AdapterError(
                    f"{self._adapter.describe()}: no answer to {self._call.describe()} within "
                    f"{deadline:.0f} s (raise --agenttools-call-timeout if it is just slow)"
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
                f"{deadline:.0f} s; it answered only after the kit's cancel "
                f"(isError={str(late.is_error).lower()}, text {late.text[:200]!r})"
            ) from None
        return result_from_wire(raw, self._call, self._adapter.describe())

    def cancel(self) -> None:
        if not self._future.done():
            self._child.send({"method": "$/cancelRequest", "params": {"id": self._id}})

    def done(self) -> bool:
        return self._future.done()


class StdioAdapter:
    def __init__(
        self,
        command: str,
        manifest_override: Mapping[str, Any] | None = None,
        call_timeout: float = 60.0,
        env: Mapping[str, str] | None = None,
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
        self._ids = itertools.count(1)
        self._child: _Child | None = None
        self._lock = threading.Lock()
        self.restarts = 0

    def describe(self) -> str:
        return f"stdio adapter `{self.command}`"

    def deadline_for(self, call: ToolCall) -> float:
        return deadline_for(call, self.call_timeout)

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
        child = _Child(self.argv, self.describe(), self._env)
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
        threading.Thread(target=self._retire, args=(child,), daemon=True).start()

    def _retire(self, child: _Child) -> None:
        for future in list(child.pending.values()):
            with contextlib.suppress(Exception):
                future.exception(timeout=self.call_timeout)
        child.fail("retired after a call overran its deadline")

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        child = self._live_child()
        wire = wire_value(dict(settings), what="configure settings")
        _, future = self._request(child, "configure", {"settings": wire})
        try:
            answer = future.result(self.call_timeout)
        except FutureTimeout:
            child.fail("did not answer configure")
            raise AdapterError(f"{self.describe()}: no answer to configure") from None
        applied = answer.get("applied", {}) if isinstance(answer, dict) else {}
        return dict(applied) if isinstance(applied, dict) else {}

    def request(self, method: str, params: Any = None) -> Any:
        """Send an extra protocol method (``bash/analyze`` ...) and return its result."""
        child = self._live_child()
        _, future = self._request(child, method, wire_value(params, what=f"{method} params"))
        try:
            return future.result(self.call_timeout)
        except FutureTimeout:
            child.fail(f"did not answer {method}")
            raise AdapterError(f"{self.describe()}: no answer to {method}") from None

    def submit(self, call: ToolCall) -> _Pending:
        child = self._live_child()
        ident, future = self._request(child, "call", call_params(call, self.describe()))
        return _Pending(self, child, ident, future, call)

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def close(self) -> None:
        with self._lock:
            child, self._child = self._child, None
        if child is None or not child.alive():
            return
        _, future = self._request(child, "shutdown", None)
        with contextlib.suppress(Exception):
            future.result(SHUTDOWN_GRACE)
        try:
            child.proc.wait(timeout=SHUTDOWN_GRACE)
        except subprocess.TimeoutExpired:
            child.kill()
        for stream in (child.proc.stdin, child.proc.stdout, child.proc.stderr):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]


def from_settings(settings: Mapping[str, Any]) -> StdioAdapter | None:
    if not settings.get("cmd"):
        return None
    return StdioAdapter(
        settings["cmd"], settings.get("manifest"), settings.get("call_timeout", 60.0)
    )


@hookimpl
def pytest_agenttools_make_adapter(config: Any, settings: dict[str, Any]) -> StdioAdapter | None:
    """``--agenttools-cmd``: a stdio JSON-RPC server."""
    return from_settings(settings)
