"""bash answers a command that printed nothing with an empty text."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation

SUITE_MODULES = ["test_bash"]
CAUGHT_BY = {"BASH-PRES-04"}


class Blank(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if tool == "bash" and not result["isError"] and seen.get("output") == "":
            return ""
        return None


def create() -> Blank:
    return Blank()
