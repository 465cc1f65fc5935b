"""bash answers a command that printed nothing with an empty text."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class Blank(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if tool == "bash" and not result["isError"] and seen.get("output") == "":
            return ""
        return None


def create() -> Blank:
    return Blank()


BROKEN = Broken(
    caught_by={"BASH-PRES-04"},
    suite_modules=["test_bash"],
    create=create,
)
