"""write takes no per-file lock: racing writes act on the same old state."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue, canonical_key
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoLock(MutationQueue):
    @contextmanager
    def hold(self, path: str) -> Iterator[str]:
        yield canonical_key(path)


def create() -> ReferenceTools:
    unlocked = NoLock()

    def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
        return write.run(arguments, dataclasses.replace(ctx, queue=unlocked))

    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-QUEUE-01", "WRITE-QUEUE-02"},
    suite_modules=["test_write"],
    create=create,
)
