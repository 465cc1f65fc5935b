"""bash refuses a bad call (a bad timeout, a missing working directory) with "bash: invalid
call.": nothing says which argument or directory to fix."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class Vague(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        ran = any(key in seen for key in ("exit_code", "signal", "timed_out", "task_id"))
        if tool == "bash" and result["isError"] and not ran:
            return "bash: invalid call."
        return None


def create() -> Vague:
    return Vague()


BROKEN = Broken(
    caught_by={"BASH-PRES-01"},
    suite_modules=["test_bash"],
    create=create,
)
