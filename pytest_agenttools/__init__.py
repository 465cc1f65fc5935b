"""pytest-agenttools: a conformance kit for the file and shell tools of coding agents.

The public surface: the contract types, the adapter protocol, the client and workspace the
suite uses, and the assertion helpers. Importing this package does not import pytest.

PYTEST_DONT_REWRITE: this module holds no test assertions, and ``agenttools run`` imports it
before pytest starts; the marker tells pytest so (its submodules are rewritten as usual).
"""

from __future__ import annotations

from .adapters.base import Adapter, AdapterError, PendingCall, ProtocolError
from .contract import (
    PROTOCOL,
    SPEC_VERSION,
    TOOL_ARGUMENTS,
    TOOLS,
    ContractViolation,
    Manifest,
    ToolCall,
    ToolResult,
)

__version__ = "0.1.0"

__all__ = [
    "PROTOCOL",
    "SPEC_VERSION",
    "TOOLS",
    "TOOL_ARGUMENTS",
    "Adapter",
    "AdapterError",
    "ContractViolation",
    "Manifest",
    "PendingCall",
    "ProtocolError",
    "ToolCall",
    "ToolResult",
    "__version__",
]
