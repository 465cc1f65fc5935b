"""bash reports a background task's timeout but never enforces it: the task runs on."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    result = bash.run(arguments, ctx)
    task_id = result.get("details", {}).get("task_id")
    if isinstance(arguments, dict) and arguments.get("run_in_background") and task_id:
        task = ctx.services["bash.tasks"].get(task_id)
        if task is not None:
            task.deadline = None  # the defect
    return result


def create() -> ReferenceTools:
    return ReferenceTools(runs={"bash": run})


BROKEN = Broken(
    caught_by={"BASH-BG-05"},
    suite_modules=["test_bash_tasks"],
    create=create,
)
