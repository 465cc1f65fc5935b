"""read's continuation offset points at the last shown line, so every page repeats one line."""

import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class OffByOne(ReferenceTools):
    def present(self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]) -> Any:
        observation = result.get("details", {}).get("observation", {})
        if tool == "read" and isinstance(observation.get("next_offset"), int):
            observation["next_offset"] -= 1
            result["details"]["next_offset"] -= 1
            block = result["content"][0]
            block["text"] = re.sub(
                r"offset=(\d+)", lambda m: f"offset={int(m.group(1)) - 1}", block["text"]
            )
        return result


def create() -> OffByOne:
    return OffByOne()


BROKEN = Broken(
    caught_by={"READ-CAP-01", "READ-PAGE-01", "READ-TRUNC-01"},
    suite_modules=["test_read_paging"],
    create=create,
)
