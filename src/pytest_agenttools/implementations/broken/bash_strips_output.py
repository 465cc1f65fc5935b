"""bash trims the output of a successful command (the final newline and trailing blanks go):
what the model sees is not what the command printed."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class Stripped(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool == "bash" and seen.get("exit_code") == 0 and isinstance(seen.get("output"), str):
            seen["output"] = seen["output"].rstrip()


def create() -> Stripped:
    return Stripped()


BROKEN = Broken(
    caught_by={"BASH-EXIT-04"},
    suite_modules=["test_bash"],
    create=create,
)
