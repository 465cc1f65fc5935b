"""edit replaces the first occurrence without checking that old_string is unique."""

from typing import Any

from pytest_agenttools.reference_impl import edit

from ._patched import PatchedReference

SUITE_MODULES = ["test_edit"]
CAUGHT_BY = {"EDIT-UNIQ-01"}


def make_find(original: Any) -> Any:
    def find(view: Any, one: Any, fuzzy: Any, index: Any, path: str) -> Any:
        everything = edit.Edit(one.old, one.new, True)
        matches, used = original(view, everything, fuzzy, index, path)
        return (matches if one.replace_all else matches[:1]), used

    return find


class FirstOccurrence(PatchedReference):
    patches = ((edit, "_find", make_find),)


def create() -> FirstOccurrence:
    return FirstOccurrence()
