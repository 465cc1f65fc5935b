"""bash starts a background task but its text says only "Started in the background.": the
task id is in the observation, so the model cannot ask for the task's output."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class NoTaskId(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if tool == "bash" and seen.get("task_id") and seen.get("running"):
            return "Started in the background."
        return None


def create() -> NoTaskId:
    return NoTaskId()


BROKEN = Broken(
    caught_by={"BASH-PRES-05"},
    suite_modules=["test_bash_tasks"],
    create=create,
)
