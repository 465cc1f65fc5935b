"""bash moves a long command to the background by killing it and starting it again."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.tasks import Task
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Restarts(BashOps):
    def hand_over(self, task: Task) -> Task:
        if task.done.is_set():
            return task
        task.stop("aborted")
        task.wait(30)
        remaining = None if task.deadline is None else max(0.1, task.deadline - task.started_at)
        again = Task(
            task.id,
            task.command,
            task.cwd,
            task.env,
            timeout=remaining,
            grace=task.grace,
            keepalive=task.keepalive,
            ops=self,
            file_max_bytes=task.file_max_bytes,
            background=True,
        )
        again.env_removed = task.env_removed
        return again


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": Restarts()})


BROKEN = Broken(
    caught_by={"BASH-YIELD-01"},
    suite_modules=["test_bash_tasks"],
    create=create,
)
