"""bash's text of a failed command shows the output but not how the command ended: no exit
code, no signal, no timeout. The observation has them; the model does not."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class NoEnding(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if tool not in ("bash", "task_output") or not result["isError"] or "output" not in seen:
            return None
        if seen.get("exit_code") is None and not seen.get("signal") and not seen.get("timed_out"):
            return None
        return (str(seen.get("output") or "") + "\n\nThe command failed.").lstrip("\n")


def create() -> NoEnding:
    return NoEnding()


BROKEN = Broken(
    caught_by={"BASH-PRES-02"},
    suite_modules=["test_bash"],
    create=create,
)
