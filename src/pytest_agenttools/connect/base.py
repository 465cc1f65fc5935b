"""What every adapter provides, the policy all of them share, and the harness's own errors.

An adapter carries plain JSON data only: every call and every answer goes through
``wire_value`` whatever the transport, so the in-process, stdio and MCP adapters give the same
outcome for the same call by construction. The deadline of a call, the initialize handshake and
the manifest merge are decided here once, not in each adapter.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pytest_agenttools.harness.contract import (
    PROTOCOL,
    ContractViolation,
    Manifest,
    ToolCall,
    ToolResult,
    merge_manifest,
    wire_value,
)
from pytest_agenttools.harness.tracebacks import kit_frame

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

#: tools whose own ``timeout`` argument extends the time the kit waits for an answer
TIMED_TOOLS = frozenset({"bash", "task_output"})
#: the longest own timeout the kit adds to its deadline (a day); larger values are not waited for
MAX_EXTRA_WAIT = 86_400.0


class AdapterError(Exception):
    """The harness could not get a valid answer: crash, hang, garbage, protocol fault.

    The message always names the adapter, so a failing run says which implementation broke.
    """


class ProtocolError(AdapterError):
    """A JSON-RPC error answer (unknown tool, malformed params): a fault, not a tool result."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class TransportLimit(ProtocolError):
    """The call holds a value this adapter's transport cannot carry; refused before anything
    is sent (-32602). Not the implementation's answer: the same call in process or over stdio
    is answered by the implementation."""

    def __init__(self, message: str) -> None:
        super().__init__(message, -32602)


@runtime_checkable
class PendingCall(Protocol):
    """A call in flight: wait for its result, or cancel it."""

    def result(self, timeout: float | None = None) -> ToolResult: ...

    def cancel(self) -> None: ...

    def done(self) -> bool: ...


@runtime_checkable
class Adapter(Protocol):
    """How the kit reaches an implementation. ``describe()`` names it in every error.

    ``request`` sends an extra protocol method (``bash/analyze``); an adapter that cannot
    raises ProtocolError with code -32601.
    """

    def start(self) -> Manifest: ...

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]: ...

    def submit(self, call: ToolCall) -> PendingCall: ...

    def call(self, call: ToolCall, timeout: float | None = None) -> ToolResult: ...

    def request(self, method: str, params: Any = None) -> Any: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...


@runtime_checkable
class DefersCleanup(Protocol):
    """An adapter that cleans up after the implementation (kills what its shutdown left, as the
    MCP adapter kills every process carrying its servers' mark). ``shut_down`` ends the
    implementation as its host would and leaves the rest; ``clean_up`` then sweeps and closes,
    so that a test can judge what the implementation's own shutdown left."""

    def shut_down(self) -> None: ...

    def clean_up(self) -> None: ...


def deadline_for(call: ToolCall, call_timeout: float) -> float:
    """How long to wait for ``call``: the kit's timeout, plus the call's own for timed tools.

    A command asked to run for 30 s must be given 30 s more than a read; a timeout that is not
    a sane positive number (the clause under test may send one on purpose) adds nothing.
    """
    arguments = call.arguments if isinstance(call.arguments, Mapping) else {}
    extra = arguments.get("timeout") if call.tool in TIMED_TOOLS else None
    if isinstance(extra, int | float) and not isinstance(extra, bool) and extra > 0:
        # compared before any float(): an integer beyond the float range must not overflow
        return call_timeout + float(min(extra, MAX_EXTRA_WAIT))
    return call_timeout


def wait_within(deadline: float, due: float, timeout: float | None) -> tuple[float, float]:
    """(the deadline to name, the seconds left to wait) for a call armed with ``deadline`` and
    due at monotonic ``due``, asked for its result within ``timeout``.

    A test may give a call less time than its deadline (an answer due promptly), never more: the
    configured ``--agenttools-call-timeout`` bounds every wait, so a run with a short one (the
    broken implementations that hang) waits no test's longer allowance out.
    """
    left = max(0.0, due - time.monotonic())
    if timeout is None or timeout >= left:
        return deadline, left
    return timeout, timeout


def manifest_from_initialize(
    answer: Any, override: Mapping[str, Any] | None, *, describe: str
) -> Manifest:
    """Check the ``initialize`` answer (protocol version, manifest) and merge a manifest file.

    Raises AdapterError naming the adapter; a ContractViolation in the manifest becomes one.
    """
    if answer is not None and not isinstance(answer, Mapping):
        raise AdapterError(f"{describe}: initialize must return an object, got {answer!r:.200}")
    protocol = answer.get("protocol") if isinstance(answer, Mapping) else None
    if protocol is not None and protocol != PROTOCOL:
        raise AdapterError(
            f"{describe}: initialize answered protocol {protocol!r}; this kit speaks {PROTOCOL} "
            "(results carry details.observation; docs/adapter-protocol.md, Observations)"
        )
    try:
        return merge_manifest(answer, override, source=describe)
    except ContractViolation as exc:
        raise AdapterError(str(exc)) from exc


def call_params(call: ToolCall, describe: str) -> dict[str, Any]:
    """The ``call`` params as they go on the wire; a non-JSON argument is the kit's own bug."""
    try:
        return call.to_wire()
    except ContractViolation as exc:
        raise AdapterError(f"{describe}: cannot send {call.describe()}: {exc}") from exc


def result_from_wire(raw: Any, call: ToolCall, describe: str) -> ToolResult:
    """Validate an answer to ``call`` after its trip through JSON; AdapterError says what is off."""
    try:
        return ToolResult.from_wire(wire_value(raw, what="the result")).with_call(call)
    except ContractViolation as exc:
        raise AdapterError(
            f"{describe}: {call.describe()} answered with an invalid result: {exc}"
        ) from exc


@dataclass(frozen=True)
class Target:
    """What a run (or one ``agenttools call``) reaches: the settings every kind reads.

    The hook carries them as a plain dict (``to_settings``) so that a plugin written against
    older versions of the kit keeps working; this class is the one place their keys are spelt.
    """

    impl: str | None = None
    cmd: str | None = None
    mcp: str | None = None
    mcp_mapping: str | None = None
    #: a parsed manifest file that replaces the implementation's own, or None
    manifest: Mapping[str, Any] | None = None
    call_timeout: float = 60.0

    def to_settings(self) -> dict[str, Any]:
        return {
            "impl": self.impl,
            "cmd": self.cmd,
            "mcp": self.mcp,
            "mcp_mapping": self.mcp_mapping,
            "manifest": self.manifest,
            "call_timeout": self.call_timeout,
        }
