"""bash reports the totals of its cut view instead of the command's whole output: total_bytes
and total_lines count only what is shown, and the cause of every cut is "bytes", so a client
that trusts them tells the model that it saw everything, or the wrong cap."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class ViewTotals(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool not in ("bash", "task_output") or not seen.get("truncated"):
            return
        shown = str(seen.get("output_head", "")) + str(seen.get("output_tail") or "")
        seen["total_bytes"] = len(shown.encode("utf-8"))
        seen["total_lines"] = seen.get("output_lines")
        seen["truncated_by"] = "bytes"


def create() -> ViewTotals:
    return ViewTotals()


BROKEN = Broken(
    caught_by={"BASH-OUT-09"},
    suite_modules=["test_bash_totals"],
    create=create,
)
