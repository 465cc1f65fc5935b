"""The observation counts edits instead of replaced spans: a replace_all of four occurrences
reports one replacement."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Miscounts(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        observation = result["details"].get("observation")
        if tool == "edit" and observation and isinstance(arguments, dict):
            edits = arguments.get("edits")
            observation["replacements"] = len(edits) if isinstance(edits, list) else 1
        return result


def create() -> Miscounts:
    return Miscounts()


BROKEN = Broken(
    caught_by={"EDIT-OBS-01", "EDIT-RA-01"},
    suite_modules=["test_edit"],
    create=create,
)
