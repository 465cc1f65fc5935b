"""replace_all hands the replacement to a JavaScript-style replace, so `$&` and `$$` expand."""

import re
from typing import Any

from pytest_agenttools.reference_impl import edit

from ._patched import PatchedReference

SUITE_MODULES = ["test_edit", "test_edit_properties"]
CAUGHT_BY = {"EDIT-RA-02"}


def expand(replacement: str, matched: str) -> str:
    table = {"$$": "$", "$&": matched, "$`": "", "$'": ""}
    return re.sub(r"\$[$&`']", lambda m: table[m.group()], replacement)


def make_plan(original: Any) -> Any:
    def plan(doc: Any, edits: list[Any], path: str) -> Any:
        changed = [
            edit.Edit(e.old, expand(e.new, e.old), e.replace_all) if e.replace_all else e
            for e in edits
        ]
        return original(doc, changed, path)

    return plan


class ExpandsDollar(PatchedReference):
    patches = ((edit, "_plan", make_plan),)


def create() -> ExpandsDollar:
    return ExpandsDollar()
