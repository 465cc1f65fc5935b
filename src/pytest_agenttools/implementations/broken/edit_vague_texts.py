"""Every edit result says only "OK." or "Error: the edit failed.": no file, no argument, no count,
no line, no next step (the observation and the bytes on disk are right)."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Vague(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == "edit":
            text = "Error: the edit failed." if result["isError"] else "OK."
            result["content"] = [{"type": "text", "text": text}]
        return result


def create() -> Vague:
    return Vague()


BROKEN = Broken(
    caught_by={
        "EDIT-PRES-01",
        "EDIT-PRES-02",
        "EDIT-PRES-03",
        "EDIT-PRES-04",
        "EDIT-PRES-05",
        "EDIT-PRES-06",
    },
    suite_modules=["test_edit_text"],
    create=create,
)
