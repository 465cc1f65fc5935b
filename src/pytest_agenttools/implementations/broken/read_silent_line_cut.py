"""read cuts a long line and lists it in the observation's cut_lines, but its text shows the
kept part as if the line ended there: no marker, no note."""

import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

MARKER = re.compile(r"\.\.\. \(line truncated\)")
NOTE = re.compile(r"\n*\[Line\(s\) [^\]]* were cut\.[^\]]*\]\n?")


class SilentLineCut(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == "read" and not result["isError"]:
            for block in result["content"]:
                if block.get("type") == "text":
                    block["text"] = NOTE.sub("", MARKER.sub("", block["text"])).rstrip("\n")
        return result


def create() -> ReferenceTools:
    return SilentLineCut()


BROKEN = Broken(
    caught_by={"READ-PRES-06"},
    suite_modules=["test_read_paging"],
    create=create,
)
