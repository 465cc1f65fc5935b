"""read answers "Read 12 lines." for text, PDFs and notebooks: the lines, pages and cells are
in the observation, but the model never sees them."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Misworded, observation
from pytest_agenttools.implementations.broken._table import Broken


class SummaryOnly(Misworded):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        seen = observation(result)
        if (
            tool != "read"
            or result["isError"]
            or seen.get("kind") not in ("text", "pdf", "notebook")
        ):
            return None
        parts = seen.get("lines") or seen.get("pages") or seen.get("cells") or []
        return f"Read {len(parts)} {seen['kind']} parts."


def create() -> SummaryOnly:
    return SummaryOnly()


BROKEN = Broken(
    caught_by={"READ-PRES-01", "READ-PRES-04", "READ-PRES-05"},
    suite_modules=["test_read", "test_read_formats"],
    create=create,
)
