"""write takes a missing or null content as the empty string: a call that lost its content
truncates the file instead of being refused."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_write"]
CAUGHT_BY = {"WRITE-ARG-03"}


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if isinstance(arguments, dict) and arguments.get("content") is None:
        arguments = {**arguments, "content": ""}
    return write.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"write": run})
