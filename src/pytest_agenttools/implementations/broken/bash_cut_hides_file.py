"""bash cuts a long output and keeps it whole in a file, but its text does not say where: the
model is told output was cut and cannot read the rest."""

import os
from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class NoPath(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        path = observation(result).get("full_output_path")
        if tool not in ("bash", "task_output") or not path:
            return None
        shown = str(result["content"][0].get("text", "")) if result["content"] else ""
        for spelling in (path, os.path.basename(path)):
            shown = shown.replace(spelling, "a file")
        return shown


def create() -> NoPath:
    return NoPath()


BROKEN = Broken(
    caught_by={"BASH-PRES-03"},
    suite_modules=["test_bash_output", "test_bash_output_file"],
    create=create,
)
