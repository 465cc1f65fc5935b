"""write and edit each serialise per file, but in two queues: an edit can undo a write."""

from __future__ import annotations

import dataclasses
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def create() -> ReferenceTools:
    own = MutationQueue()

    def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
        return write.run(arguments, dataclasses.replace(ctx, queue=own))

    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-QUEUE-02"},
    suite_modules=["test_write"],
    create=create,
)
