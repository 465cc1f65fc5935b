"""bash reports each removed variable name twice (once per layer that removed it), so the list
of what a command lost does not say what was removed."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class Twice(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool in ("bash", "task_output") and seen.get("env_removed"):
            seen["env_removed"] = [*seen["env_removed"], *seen["env_removed"]]


def create() -> Twice:
    return Twice()


BROKEN = Broken(
    caught_by={"BASH-ENV-06"},
    suite_modules=["test_bash_env"],
    create=create,
)
