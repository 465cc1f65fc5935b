"""grep and glob answer every error with the same vague sentence: the model cannot tell which
argument or path to fix."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

VAGUE = "The call failed. Check the call and try again."


class Vague(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool in ("grep", "glob") and result["isError"]:
            result["content"] = [{"type": "text", "text": VAGUE}]
        return result


def create() -> Vague:
    return Vague()


BROKEN = Broken(
    caught_by={"GREP-PRES-03", "GLOB-PRES-03"},
    suite_modules=["test_grep_text", "test_glob_text"],
    create=create,
)
