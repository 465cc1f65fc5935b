"""What one call carries besides its arguments: where it runs, as whom, under which limits."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .limits import Limits
from .mutation_queue import MutationQueue


@dataclass(frozen=True)
class CallContext:
    """``services`` is per implementation instance: tools keep long-lived state there (tasks)."""

    cwd: str
    limits: Limits
    queue: MutationQueue
    env: Mapping[str, str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    services: dict[str, Any] = field(default_factory=dict)
