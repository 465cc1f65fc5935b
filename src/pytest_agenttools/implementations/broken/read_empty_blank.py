"""read answers an empty file (and /dev/null) with an empty text: the model cannot tell an
empty file from a tool that said nothing."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class Blank(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if tool == "read" and not result["isError"] and seen.get("total_lines") == 0:
            return ""
        return None


def create() -> Blank:
    return Blank()


BROKEN = Broken(
    caught_by={"READ-PRES-03"},
    suite_modules=["test_read"],
    create=create,
)
