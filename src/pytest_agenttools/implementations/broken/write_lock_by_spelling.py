"""write locks per path string, not per file: a symbolic link's writes do not wait."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue, canonical_key
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class BySpelling(MutationQueue):
    """One lock per spelling (never freed: the defect is the key, not the bookkeeping)."""

    def __init__(self) -> None:
        super().__init__()
        self._by_spelling: dict[str, threading.Lock] = {}
        self._table = threading.Lock()

    @contextmanager
    def hold(self, path: str) -> Iterator[str]:
        with self._table:
            lock = self._by_spelling.setdefault(path, threading.Lock())
        with lock:
            yield canonical_key(path)


def create() -> ReferenceTools:
    queue = BySpelling()

    def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
        return write.run(arguments, dataclasses.replace(ctx, queue=queue))

    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-QUEUE-01"},
    suite_modules=["test_write"],
    create=create,
)
