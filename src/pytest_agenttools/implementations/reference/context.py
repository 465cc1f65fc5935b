"""What one call carries besides its arguments: where it runs, as whom, under which limits,
and the operations (ports) through which its tool reaches the file system and processes."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue


@dataclass(frozen=True)
class CallContext:
    """``services`` is per implementation instance: tools keep long-lived state there (tasks).

    ``ops`` maps a tool name to that tool's operations port (``write.WriteOps`` ...): the
    default touches the real system; a variant of the reference swaps one port, not a module.
    """

    cwd: str
    limits: Limits
    queue: MutationQueue
    env: Mapping[str, str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    services: dict[str, Any] = field(default_factory=dict)
    ops: Mapping[str, Any] = field(default_factory=dict)
    #: the optional features the implementation declares; None: every feature its tools have
    features: frozenset[str] | None = None

    def ops_for(self, tool: str, default: Any) -> Any:
        """The operations port of ``tool``, or ``default`` when none is installed."""
        return self.ops.get(tool, default)
