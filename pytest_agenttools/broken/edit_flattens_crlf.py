"""edit normalises CRLF to LF for matching and never restores it."""

from typing import Any

from pytest_agenttools.reference_impl import edit, text_match

from ._patched import PatchedReference

SUITE_MODULES = ["test_edit"]
CAUGHT_BY = {"EDIT-EOL-01"}


def make_load(original: Any) -> Any:
    def load(path: str, target: str) -> Any:
        doc = original(path, target)
        return edit.Document(text_match.to_lf(doc.text), doc.encoding, doc.mode, "\n")

    return load


class FlattensCrlf(PatchedReference):
    patches = ((edit, "_load", make_load),)


def create() -> FlattensCrlf:
    return FlattensCrlf()
