"""read's continuation offset points at the last shown line, so every page repeats one line."""

import re
from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_read_paging"]
CAUGHT_BY = {"READ-CAP-01", "READ-PAGE-01"}


class OffByOne(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        result = super().call(tool, arguments, cwd, env, cancel)
        details = result.get("details", {})
        if tool == "read" and isinstance(details.get("next_offset"), int):
            details["next_offset"] -= 1
            block = result["content"][0]
            block["text"] = re.sub(
                r"offset=(\d+)", lambda m: f"offset={int(m.group(1)) - 1}", block["text"]
            )
        return result


def create() -> OffByOne:
    return OffByOne()
