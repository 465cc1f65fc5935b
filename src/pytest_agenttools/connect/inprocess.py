"""Call a Python implementation in this process, on a thread per call.

The factory (``package.module:callable``) returns an object with ``initialize(params)``,
``configure(settings)``, ``call(tool, arguments, cwd, env, cancel)`` and ``shutdown()``, all on
plain dicts (``cancel`` is a ``threading.Event`` the kit sets to abort the call). Calls and
answers go through the same JSON normalisation as over stdio, so nothing passes here that the
wire could not carry.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shlex
import sys
import threading
import time
from collections.abc import Mapping
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
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.contract import (
    PROTOCOL,
    ContractViolation,
    Manifest,
    ToolCall,
    ToolResult,
    wire_value,
)
from pytest_agenttools.harness.tracebacks import kit_frame

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

REFERENCE_FACTORY = "pytest_agenttools.implementations.reference:create"


def load_factory(spec: str) -> Any:
    """Import ``package.module:attribute`` or ``path/to/file.py:attribute``; AdapterError says
    what to fix."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise AdapterError(
            f"--agenttools-impl={spec!r} must look like 'package.module:factory' or "
            "'path/to/adapter.py:factory' (a module, a colon, and a callable that returns the "
            "implementation)"
        )
    if module_name.endswith(".py") or os.sep in module_name:
        module = _import_file(module_name, spec)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise AdapterError(
                f"--agenttools-impl={spec!r}: cannot import {module_name!r}: {exc}"
            ) from exc
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise AdapterError(
            f"--agenttools-impl={spec!r}: module {module_name!r} has no attribute {attribute!r}"
        ) from None


def _import_file(file: str, spec: str) -> Any:
    """Import a module from its file, as ``python FILE`` would see it: its directory first on
    ``sys.path`` (so its sibling modules import), registered under its own name."""
    path = os.path.abspath(file)
    if not os.path.isfile(path):
        raise AdapterError(f"--agenttools-impl={spec!r}: no such file {path}")
    name = os.path.splitext(os.path.basename(path))[0]
    loaded = sys.modules.get(name)
    if loaded is not None:
        where = getattr(loaded, "__file__", None)
        if where and os.path.abspath(where) == path:
            return loaded
        raise AdapterError(
            f"--agenttools-impl={spec!r}: a module named {name!r} is already imported from "
            f"{where or 'elsewhere'}; rename {os.path.basename(path)}"
        )
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    found = importlib.util.spec_from_file_location(name, path)
    if found is None or found.loader is None:
        raise AdapterError(f"--agenttools-impl={spec!r}: {path} is not a Python module")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    try:
        found.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise AdapterError(
            f"--agenttools-impl={spec!r}: importing {path} raised {type(exc).__name__}: {exc}"
        ) from exc
    return module


class _Pending:
    def __init__(
        self, future: Future[ToolResult], cancel: threading.Event, deadline: float, where: str
    ) -> None:
        self._future = future
        self._cancel = cancel
        self._deadline = deadline
        self._due = time.monotonic() + deadline
        self._where = where

    def result(self, timeout: float | None = None) -> ToolResult:
        """The result; without ``timeout``, within the call's deadline (armed at submit)."""
        shown, wait = wait_within(self._deadline, self._due, timeout)
        try:
            return self._future.result(wait)
        except FutureTimeout:
            self._cancel.set()
            raise AdapterError(
                f"{self._where}: no result within {shown:g} s (a cancel was sent)"
            ) from None

    def cancel(self) -> None:
        self._cancel.set()

    def done(self) -> bool:
        return self._future.done()


def serve_argv(spec: str) -> list[str]:
    """The command that serves the in-process implementation ``spec`` over stdio."""
    return [sys.executable, "-m", "pytest_agenttools.cli", "serve", "--impl", spec]


class InProcessAdapter:
    transport = "in-process"

    def __init__(
        self,
        spec: str,
        manifest_override: Mapping[str, Any] | None = None,
        call_timeout: float = 60.0,
    ) -> None:
        self.spec = spec
        self._override = manifest_override
        self.call_timeout = call_timeout
        self._impl: Any = None

    def describe(self) -> str:
        return f"in-process adapter {self.spec!r}"

    def apart(self) -> StdioAdapter:
        """The same implementation served over stdio by a child process of its own, on this
        process's import path: for a measurement (memory, a kill) that this process's history
        or fate must not touch. Not started."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        return StdioAdapter(
            shlex.join(serve_argv(self.spec)), self._override, self.call_timeout, env
        )

    def start(self) -> Manifest:
        factory = load_factory(self.spec)
        try:
            self._impl = factory()
        except Exception as exc:
            raise AdapterError(f"{self.describe()}: the factory raised {exc!r}") from exc
        answer: Any = None
        if hasattr(self._impl, "initialize"):
            try:
                answer = wire_value(
                    self._impl.initialize({"protocol": PROTOCOL}), what="initialize's answer"
                )
            except ContractViolation as exc:
                raise AdapterError(f"{self.describe()}: {exc}") from exc
        return manifest_from_initialize(answer, self._override, describe=self.describe())

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        if not hasattr(self._impl, "configure"):
            return {}
        answer = self._impl.configure(wire_value(dict(settings), what="settings")) or {}
        applied = wire_value(answer, what="configure's answer").get("applied", {})
        return dict(applied) if isinstance(applied, dict) else {}

    def _run(self, call: ToolCall, wire: dict[str, Any], cancel: threading.Event) -> ToolResult:
        try:
            raw = self._impl.call(
                wire["tool"], wire["arguments"], wire["cwd"], wire.get("env"), cancel
            )
        except Exception as exc:
            name = type(exc).__name__
            # a protocol fault of the call (unknown tool, malformed env) carries its JSON-RPC
            # code, as the stdio server would answer it
            code = getattr(exc, "jsonrpc_code", None)
            if type(code) is int or name == "UnknownToolError":
                raise ProtocolError(
                    f"{self.describe()}: {exc}", code if type(code) is int else -32602
                ) from exc
            raise AdapterError(
                f"{self.describe()}: {call.describe()} raised {name}: {exc} "
                "(a tool failure must be a result with isError=true, not an exception)"
            ) from exc
        return result_from_wire(raw, call, self.describe())

    def submit(self, call: ToolCall) -> _Pending:
        wire = call_params(call, self.describe())
        cancel = threading.Event()
        future: Future[ToolResult] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(self._run(call, wire, cancel))
            except BaseException as exc:
                future.set_exception(exc)

        # a daemon thread per call: a call that never returns (the implementation ignores its
        # cancel) must not keep the test process from exiting, as a pool's worker would
        threading.Thread(target=run, daemon=True, name="agenttools-inproc").start()
        return _Pending(future, cancel, deadline_for(call, self.call_timeout), self.describe())

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def request(self, method: str, params: Any = None) -> Any:
        """An extra protocol method: ``impl.request(method, params)``, else ``impl.method(name)``.

        The reference's ``method(name)`` returns ``fn(params, services)``; either way the answer
        goes through JSON, and an unknown method is a ProtocolError (-32601) as over stdio.
        """
        wire = wire_value(params, what=f"the params of {method}")
        try:
            if hasattr(self._impl, "request"):
                answer = self._impl.request(method, wire)
            else:
                found = self._impl.method(method) if hasattr(self._impl, "method") else None
                if found is None:
                    raise ProtocolError(f"{self.describe()}: unknown method {method!r}", -32601)
                answer = found(wire, getattr(self._impl, "services", {}))
        except (TypeError, ValueError, KeyError) as exc:
            raise ProtocolError(
                f"{self.describe()}: {method} rejected its params: {exc}", -32602
            ) from exc
        return wire_value(answer, what=f"the answer to {method}")

    def close(self) -> None:
        if self._impl is not None and hasattr(self._impl, "shutdown"):
            self._impl.shutdown()


def from_settings(settings: Mapping[str, Any]) -> InProcessAdapter:
    return InProcessAdapter(
        settings.get("impl") or REFERENCE_FACTORY,
        settings.get("manifest"),
        settings.get("call_timeout", 60.0),
    )
