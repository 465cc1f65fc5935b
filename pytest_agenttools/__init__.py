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

from .adapters.base import Adapter, AdapterError, PendingCall, ProtocolError
from .contract import (
    PROTOCOL,
    SPEC_VERSION,
    TOOLS,
    ContractViolation,
    Limit,
    Manifest,
    ToolCall,
    ToolResult,
)
from .observations import (
    BashObservation,
    EditObservation,
    GlobObservation,
    GrepObservation,
    Observation,
    ReadObservation,
    WriteObservation,
)
from .workspace import Workspace

if TYPE_CHECKING:
    from . import assertions
    from .cli import run_conformance
    from .client import ToolClient
    from .markers import clause, feature, profile, slow

__version__ = "0.2.0"

_LAZY = {
    "assertions": "",
    "ToolClient": "client",
    "clause": "markers",
    "feature": "markers",
    "profile": "markers",
    "slow": "markers",
    "run_conformance": "cli",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_agenttools' has no attribute {name!r}")
    import importlib

    if not module:  # a submodule
        return importlib.import_module(f".{name}", __name__)
    return getattr(importlib.import_module(f".{module}", __name__), name)


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
