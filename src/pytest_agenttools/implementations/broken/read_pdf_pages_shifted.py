"""read gives each PDF page the text of the page after it (an off-by-one in the page loop): the
page numbers are right, their texts are not."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class Shifted(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        texts = seen.get("page_texts")
        if tool == "read" and seen.get("kind") == "pdf" and isinstance(texts, list) and texts:
            seen["page_texts"] = [*texts[1:], ""]


def create() -> Shifted:
    return Shifted()


BROKEN = Broken(
    caught_by={"READ-PDF-04"},
    suite_modules=["test_read_formats"],
    create=create,
)
