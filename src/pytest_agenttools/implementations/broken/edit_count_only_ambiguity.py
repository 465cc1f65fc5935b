"""An ambiguous edit's error gives the number of matches but not where they are."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CountOnly(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        details = result["details"]
        if tool == "edit" and details.get("error") == "ambiguous":
            text = (
                f"Found {details['occurrences']} matches of the string to replace, but "
                "replace_all is false. Add more context to make it unique."
            )
            result["content"] = [{"type": "text", "text": text}]
        return result


def create() -> CountOnly:
    return CountOnly()


BROKEN = Broken(
    caught_by={"EDIT-PRES-03"},
    suite_modules=["test_edit_text"],
    create=create,
)
