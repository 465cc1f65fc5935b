"""What one call carries besides its arguments: where it runs, as whom, under which limits."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from .limits import Limits
from .mutation_queue import MutationQueue


@dataclass(frozen=True)
class CallContext:
    cwd: str
    limits: Limits
    queue: MutationQueue
    env: Mapping[str, str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
