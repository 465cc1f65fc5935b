"""read gives each PDF page the text of the page after it (an off-by-one in the page loop): the
page numbers are right, their texts are not."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped

SUITE_MODULES = ["test_read_formats"]
CAUGHT_BY = {"READ-PDF-04"}


class Shifted(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        texts = seen.get("page_texts")
        if tool == "read" and seen.get("kind") == "pdf" and isinstance(texts, list) and texts:
            seen["page_texts"] = [*texts[1:], ""]


def create() -> Shifted:
    return Shifted()
