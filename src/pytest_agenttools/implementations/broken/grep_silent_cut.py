"""grep and glob cut a page but never say so in the text: the observation has ``next_offset``,
the model never learns that more results exist."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class SilentCut(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool in ("grep", "glob") and not result["isError"]:
            for block in result["content"]:
                kept = [line for line in block["text"].split("\n") if "offset=" not in line]
                block["text"] = "\n".join(kept).rstrip("\n")
        return result


def create() -> SilentCut:
    return SilentCut()


BROKEN = Broken(
    caught_by={"GREP-PRES-02", "GLOB-PRES-02"},
    suite_modules=["test_grep_text", "test_glob_text"],
    create=create,
)
