"""bash counts its timeout from the command's last output, not from its start: a command that
keeps printing is never ended (an inactivity timer reset by every write)."""

from __future__ import annotations

import threading
import time

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.tasks import Task, TaskTable
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def _push_deadline(task: Task) -> None:
    """Each time the output grows, the deadline moves to a whole timeout from now."""
    seen = task.output.size
    while not task.done.wait(0.02):
        size = task.output.size
        if size != seen and task.timeout is not None:
            seen = size
            task.deadline = time.monotonic() + task.timeout  # the defect


class InactivityTable(TaskTable):
    def track(self, task: Task) -> None:
        super().track(task)
        threading.Thread(target=_push_deadline, args=(task,), daemon=True).start()


def create() -> ReferenceTools:
    tools = ReferenceTools()
    tools.services["bash.tasks"] = InactivityTable()
    return tools


BROKEN = Broken(
    caught_by={"BASH-TO-02"},
    suite_modules=["test_bash"],
    create=create,
)
