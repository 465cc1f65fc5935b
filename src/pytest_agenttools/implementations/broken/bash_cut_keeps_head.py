"""bash cuts a long output to its start (as a plain ``output[:cap]`` does): the view keeps the
head and drops the tail, so the exit message and the error that ended the command are never
shown."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class HeadOnly(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool not in ("bash", "task_output") or not seen.get("truncated"):
            return
        head = str(seen.get("output_head", ""))
        tail = str(seen.get("output_tail") or "")
        text = str(result["content"][0].get("text", "")) if result["content"] else ""
        if tail and tail in text:  # the model is shown the head only, too
            result["content"] = [{"type": "text", "text": text.replace(tail, "", 1)}]
        seen.update(output=head, output_tail="")


def create() -> HeadOnly:
    return HeadOnly()


BROKEN = Broken(
    caught_by={"BASH-OUT-06"},
    suite_modules=["test_bash_output"],
    create=create,
)
