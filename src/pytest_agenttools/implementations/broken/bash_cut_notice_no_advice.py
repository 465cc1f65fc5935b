"""bash cuts a long output, names the file that keeps it whole, and stops there: nothing tells
the model to read that file rather than run the command again, so a model that wants the middle
of a build log runs the build (or a migration, or a deploy) a second time."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken

#: the reference's advice, after the path of the full output
ADVICE = " (read it, or redirect output to a file; do not re-run a command that has side effects)"


class NoAdvice(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        if tool not in ("bash", "task_output") or not observation(result).get("truncated"):
            return None
        shown = str(result["content"][0].get("text", "")) if result["content"] else ""
        return shown.replace(ADVICE, "")


def create() -> NoAdvice:
    return NoAdvice()


BROKEN = Broken(
    caught_by={"BASH-PRES-06"},
    suite_modules=["test_bash_output"],
    create=create,
)
