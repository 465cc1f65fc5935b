"""edit decodes with the BOM stripped and writes the text back without it."""

from typing import Any

from pytest_agenttools.reference_impl import edit, textcodec

from ._patched import PatchedReference

SUITE_MODULES = ["test_edit"]
CAUGHT_BY = {"EDIT-BOM-01"}


def make_load(original: Any) -> Any:
    def load(path: str, target: str) -> Any:
        doc = original(path, target)
        if doc.encoding is textcodec.UTF8_SIG:
            return edit.Document(doc.text, textcodec.UTF8, doc.mode, doc.ending)
        return doc

    return load


class DropsBom(PatchedReference):
    patches = ((edit, "_load", make_load),)


def create() -> DropsBom:
    return DropsBom()
