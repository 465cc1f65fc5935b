"""A fuzzy hit normalises the WHOLE file before the replacement (pi 0.73.1's scope bug)."""

from typing import Any

from pytest_agenttools.reference_impl import edit, text_match

from ._patched import PatchedReference

SUITE_MODULES = ["test_edit", "test_edit_properties"]
CAUGHT_BY = {"EDIT-FUZZ-02"}


def make_plan(original: Any) -> Any:
    def plan(doc: Any, edits: list[Any], path: str) -> Any:
        new_text, blocks, fuzzy = original(doc, edits, path)
        if fuzzy:
            folded = edit.Document(text_match.fold(doc.text), doc.encoding, doc.mode, doc.ending)
            new_text, blocks, _ = original(folded, edits, path)
        return new_text, blocks, fuzzy

    return plan


class NormalisesFile(PatchedReference):
    patches = ((edit, "_plan", make_plan),)


def create() -> NormalisesFile:
    return NormalisesFile()
