"""bash moves a long command to the background by killing it and starting it again."""

from __future__ import annotations

from pytest_agenttools.reference_impl import tasks
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash_tasks"]
CAUGHT_BY = {"BASH-YIELD-01"}

_adopt = tasks.TaskTable.adopt


def restart_then_adopt(self: tasks.TaskTable, task: tasks.Task) -> None:
    if task.done.is_set():
        _adopt(self, task)
        return
    task.stop("aborted")
    task.wait(30)
    remaining = None if task.deadline is None else max(0.1, task.deadline - task.started_at)
    again = tasks.Task(
        task.id,
        task.command,
        task.cwd,
        task.env,
        timeout=remaining,
        grace=task.grace,
        keepalive=task.keepalive,
    )
    _adopt(self, again)


def create() -> ReferenceTools:
    setattr(tasks.TaskTable, "adopt", restart_then_adopt)  # the defect, for this process only
    return ReferenceTools()
