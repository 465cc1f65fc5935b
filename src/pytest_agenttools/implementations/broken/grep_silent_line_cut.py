"""grep cuts a long matching line and marks it cut in the observation, but its text shows the
kept part as if the line ended there: no marker, no note."""

import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

MARKER = re.compile(r"\.\.\. \(line truncated\)")
NOTE = re.compile(r"\n*\[\d+ line\(s\) longer than [^\]]*\]\n?")


class SilentLineCut(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == "grep" and not result["isError"]:
            for block in result["content"]:
                if block.get("type") == "text":
                    block["text"] = NOTE.sub("\n", MARKER.sub("", block["text"])).rstrip("\n")
        return result


def create() -> ReferenceTools:
    return SilentLineCut()


BROKEN = Broken(
    caught_by={"GREP-PRES-04"},
    suite_modules=["test_grep_paging"],
    create=create,
)
