"""bash ends a command at its timeout and throws away what it printed: the result says "timed
out" and nothing else, though the output so far is what tells the model where it hung."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class Dropped(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool in ("bash", "task_output") and seen.get("timed_out"):
            seen["output"] = ""
            for key in ("output_head", "output_tail"):
                seen.pop(key, None)
            seen["truncated"] = False
            result["content"] = [{"type": "text", "text": "Command timed out."}]


def create() -> Dropped:
    return Dropped()


BROKEN = Broken(
    caught_by={"BASH-TO-02"},
    suite_modules=["test_bash"],
    create=create,
)
