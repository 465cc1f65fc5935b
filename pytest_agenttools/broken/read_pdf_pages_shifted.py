"""read gives each PDF page the text of the page after it (an off-by-one in the page loop): the
page numbers are right, their texts are not."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._present import observation

SUITE_MODULES = ["test_read_formats"]
CAUGHT_BY = {"READ-PDF-04"}


class Shifted(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        seen = observation(result)
        texts = seen.get("page_texts")
        if tool == "read" and seen.get("kind") == "pdf" and isinstance(texts, list) and texts:
            seen["page_texts"] = [*texts[1:], ""]
        return result


def create() -> Shifted:
    return Shifted()
