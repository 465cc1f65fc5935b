"""grep and glob answer with a count only ("Found 7 results."): the results are in the
observation, but the model never sees them."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CountOnly(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        observation = result["details"].get("observation")
        if tool in ("grep", "glob") and not result["isError"] and observation:
            shown = sum(
                len(observation.get(key, [])) for key in ("files", "lines", "counts", "paths")
            )
            result["content"] = [{"type": "text", "text": f"Found {shown} results."}]
        return result


def create() -> CountOnly:
    return CountOnly()


BROKEN = Broken(
    caught_by={"GREP-PRES-01", "GLOB-PRES-01"},
    suite_modules=["test_grep_text", "test_glob_text"],
    create=create,
)
