"""pytest-agenttools: a conformance kit for the file and shell tools of coding agents.

The public surface: the contract and observation types, the adapter protocol, the tool client
and workspace the suite uses, the markers, the assertion helpers and ``run_conformance``.
Importing this package does not import pytest; the names that need it (the markers,
``run_conformance``) load on first use.

PYTEST_DONT_REWRITE: this module holds no test assertions, and ``agenttools run`` imports it
before pytest starts; the marker tells pytest so. The modules that do hold them (the assertion
helpers, the client) load on first use too, so that pytest's assertion rewriting, installed
after this package is imported, still reaches them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_agenttools.connect.base import Adapter, AdapterError, PendingCall, ProtocolError
from pytest_agenttools.harness.contract import (
    PROTOCOL,
    SPEC_VERSION,
    TOOLS,
    ContractViolation,
    Limit,
    Manifest,
    ToolCall,
    ToolResult,
)
from pytest_agenttools.harness.observations import (
    BashObservation,
    EditObservation,
    GlobObservation,
    GrepObservation,
    Observation,
    ReadObservation,
    WriteObservation,
)
from pytest_agenttools.harness.workspace import Workspace

if TYPE_CHECKING:
    from pytest_agenttools.cli.commands import run_conformance
    from pytest_agenttools.harness import assertions
    from pytest_agenttools.harness.client import ToolClient
    from pytest_agenttools.harness.markers import clause, feature, profile, slow

__version__ = "0.2.0"

#: a name -> (the module that holds it, the attribute; None: the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "assertions": ("harness.assertions", None),
    "ToolClient": ("harness.client", "ToolClient"),
    "clause": ("harness.markers", "clause"),
    "feature": ("harness.markers", "feature"),
    "profile": ("harness.markers", "profile"),
    "slow": ("harness.markers", "slow"),
    "run_conformance": ("cli.commands", "run_conformance"),
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'pytest_agenttools' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f".{where[0]}", __name__)
    return module if where[1] is None else getattr(module, where[1])


__all__ = [
    "PROTOCOL",
    "SPEC_VERSION",
    "TOOLS",
    "Adapter",
    "AdapterError",
    "BashObservation",
    "ContractViolation",
    "EditObservation",
    "GlobObservation",
    "GrepObservation",
    "Limit",
    "Manifest",
    "Observation",
    "PendingCall",
    "ProtocolError",
    "ReadObservation",
    "ToolCall",
    "ToolClient",
    "ToolResult",
    "Workspace",
    "WriteObservation",
    "__version__",
    "assertions",
    "clause",
    "feature",
    "profile",
    "run_conformance",
    "slow",
]
