"""bash reports removed variable names only in the first result of the session that has any:
a credential removed for the first time later on is never reported, so the user whose command
lacks it never learns why."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class OnceEver(Reshaped):
    def __init__(self) -> None:
        super().__init__()
        self.reported = False

    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool not in ("bash", "task_output") or not seen.get("env_removed"):
            return
        if self.reported:  # the defect: one report per session, whatever is removed later
            seen["env_removed"] = []
            result.get("details", {}).pop("envSanitized", None)
        self.reported = True


def create() -> OnceEver:
    return OnceEver()


BROKEN = Broken(
    caught_by={"BASH-ENV-06"},
    suite_modules=["test_bash_env"],
    create=create,
)
