"""read says more lines follow whenever a page is full, even when it ended at the last line
(it never looks one line ahead), so the model pages into an offset past the end."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoLookAhead(ReferenceTools):
    def present(self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]) -> Any:
        observation = result.get("details", {}).get("observation")
        if tool != "read" or result.get("isError") or not observation:
            return result
        lines = observation.get("lines", [])
        limit = arguments.get("limit") if isinstance(arguments, dict) else None
        page = self.limits["read.max_lines"]
        page = min(limit, page) if isinstance(limit, int) and limit > 0 else page
        if lines and not observation.get("truncated") and len(lines) == page:
            end = observation["start_line"] + len(lines) - 1
            observation.update(truncated=True, next_offset=end + 1, truncated_by="lines")
            observation.pop("total_lines", None)
            result["content"][0]["text"] += f"\n\n[Use offset={end + 1} to continue.]"
        return result


def create() -> NoLookAhead:
    return NoLookAhead()


BROKEN = Broken(
    caught_by={"READ-TRUNC-01", "READ-CAP-01"},
    suite_modules=["test_read_paging"],
    create=create,
)
