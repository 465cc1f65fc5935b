"""read takes a limit below 1 (0, -1) as "no limit" and shows the whole file, instead of
refusing it: a model that asked for nothing gets everything."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import read
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if isinstance(arguments, dict):
        limit = arguments.get("limit")
        if isinstance(limit, int) and not isinstance(limit, bool) and limit < 1:
            arguments = {k: v for k, v in arguments.items() if k != "limit"}
    return read.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"read": run})


BROKEN = Broken(
    caught_by={"READ-ARG-04"},
    suite_modules=["test_read"],
    create=create,
)
