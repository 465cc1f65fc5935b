"""Call a Python implementation in this process, on a thread per call.

The factory (``package.module:callable``) returns an object with ``initialize()``,
``configure(settings)``, ``call(tool, arguments, cwd, env, cancel)`` and ``shutdown()``, all on
plain dicts. Results still go through JSON, so nothing passes that stdio could not carry.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..contract import ContractViolation, Manifest, ToolCall, ToolResult
from .base import AdapterError, ProtocolError


def load_factory(spec: str) -> Any:
    """Import ``package.module:attribute``; AdapterError says what to fix."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise AdapterError(
            f"--agenttools-impl={spec!r} must look like 'package.module:factory' "
            "(a module path, a colon, and a callable that returns the implementation)"
        )
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


class _Pending:
    def __init__(self, future: Future[ToolResult], cancel: threading.Event) -> None:
        self._future = future
        self._cancel = cancel

    def result(self, timeout: float | None = None) -> ToolResult:
        try:
            return self._future.result(timeout)
        except FutureTimeout:
            self._cancel.set()
            raise AdapterError(f"no result within {timeout} s (a cancel was sent)") from None

    def cancel(self) -> None:
        self._cancel.set()

    def done(self) -> bool:
        return self._future.done()


class InProcessAdapter:
    def __init__(self, spec: str, manifest_override: Mapping[str, Any] | None = None) -> None:
        self.spec = spec
        self._override = manifest_override
        self._impl: Any = None
        self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="agenttools-inproc")

    def describe(self) -> str:
        return f"in-process adapter {self.spec!r}"

    def start(self) -> Manifest:
        factory = load_factory(self.spec)
        try:
            self._impl = factory()
        except Exception as exc:
            raise AdapterError(f"{self.describe()}: the factory raised {exc!r}") from exc
        answer: Any = None
        if hasattr(self._impl, "initialize"):
            answer = json.loads(json.dumps(self._impl.initialize({"protocol": "agenttools/1"})))
        if isinstance(answer, dict) and isinstance(answer.get("manifest"), dict):
            manifest = Manifest.from_wire(answer["manifest"], source=self.describe())
            if self._override:
                manifest = manifest.merged_with(self._override)
            return manifest
        if self._override:
            return Manifest.from_wire(self._override, source="manifest file")
        raise AdapterError(
            f"{self.describe()}: initialize() returned no manifest and no --agenttools-manifest "
            "file was given; declare the tools, features and limits one way or the other"
        )

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        if not hasattr(self._impl, "configure"):
            return {}
        answer = self._impl.configure(dict(settings)) or {}
        return dict(answer.get("applied", {}))

    def _run(self, call: ToolCall, cancel: threading.Event) -> ToolResult:
        wire = call.to_wire()
        try:
            raw = self._impl.call(
                wire["tool"], wire["arguments"], wire["cwd"], wire.get("env"), cancel
            )
        except Exception as exc:
            name = type(exc).__name__
            if name == "UnknownToolError":
                raise ProtocolError(f"{self.describe()}: {exc}", -32602) from exc
            raise AdapterError(
                f"{self.describe()}: {call.describe()} raised {name}: {exc} "
                "(a tool failure must be a result with isError=true, not an exception)"
            ) from exc
        try:
            return ToolResult.from_wire(json.loads(json.dumps(raw)))
        except (TypeError, ValueError, ContractViolation) as exc:
            raise AdapterError(
                f"{self.describe()}: {call.describe()} answered badly: {exc}"
            ) from exc

    def submit(self, call: ToolCall) -> _Pending:
        cancel = threading.Event()
        return _Pending(self._pool.submit(self._run, call, cancel), cancel)

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        return self.submit(call).result(timeout)

    def request(self, method: str, params: Any = None) -> Any:
        """An extra protocol method: ``impl.request(method, params)``, else ``impl.method(name)``.

        The reference's ``method(name)`` returns ``fn(params, services)``; either way the answer
        goes through JSON, and an unknown method is a ProtocolError (-32601) as over stdio.
        """
        wire = json.loads(json.dumps(params))
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
        return json.loads(json.dumps(answer))

    def close(self) -> None:
        if self._impl is not None and hasattr(self._impl, "shutdown"):
            self._impl.shutdown()
        self._pool.shutdown(wait=False, cancel_futures=True)
