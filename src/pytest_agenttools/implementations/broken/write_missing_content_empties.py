"""write takes a missing or null content as the empty string: a call that lost its content
truncates the file instead of being refused."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if isinstance(arguments, dict) and arguments.get("content") is None:
        arguments = {**arguments, "content": ""}
    return write.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-ARG-03"},
    suite_modules=["test_write"],
    create=create,
)
