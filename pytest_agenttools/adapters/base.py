"""What every adapter provides, and the errors that say the harness (not a tool) went wrong.

An adapter carries plain JSON-able data only, so the in-process and the stdio adapter are
interchangeable and give the same outcomes for the same implementation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ..contract import Manifest, ToolCall, ToolResult


class AdapterError(Exception):
    """The harness could not get a valid answer: crash, hang, garbage, protocol fault.

    The message always names the adapter, so a failing run says which implementation broke.
    """


class ProtocolError(AdapterError):
    """A JSON-RPC error answer (unknown tool, malformed params): a fault, not a tool result."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@runtime_checkable
class PendingCall(Protocol):
    """A call in flight: wait for its result, or cancel it."""

    def result(self, timeout: float | None = None) -> ToolResult: ...

    def cancel(self) -> None: ...

    def done(self) -> bool: ...


@runtime_checkable
class Requester(Protocol):
    """An adapter that can send extra protocol methods (beyond the core four), optional."""

    def request(self, method: str, params: Any = None) -> Any: ...


@runtime_checkable
class Adapter(Protocol):
    """How the kit reaches an implementation. ``describe()`` names it in every error."""

    def start(self) -> Manifest: ...

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]: ...

    def submit(self, call: ToolCall) -> PendingCall: ...

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...
