"""bash reports a command that exited with a non-zero code as a success (the code is in the
text and the observation, but the result is not an error)."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class NonzeroOk(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        code = seen.get("exit_code")
        if tool == "bash" and isinstance(code, int) and code != 0:
            result["isError"] = False


def create() -> NonzeroOk:
    return NonzeroOk()


BROKEN = Broken(
    caught_by={"BASH-EXIT-05"},
    suite_modules=["test_bash"],
    create=create,
)
