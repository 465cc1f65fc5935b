"""edit replaces the first occurrence without checking that old_string is unique."""

import functools

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.text_match import FuzzyView, LineEndingView, Match
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def first_only(
    view: LineEndingView, one: edit.Edit, fuzzy: list[FuzzyView], index: int | None, path: str
) -> tuple[list[Match], bool]:
    everything = edit.Edit(one.old, one.new, True)
    matches, used = edit.find_matches(view, everything, fuzzy, index, path)
    return (matches if one.replace_all else matches[:1]), used


def create() -> ReferenceTools:
    steps = edit.Steps(plan=functools.partial(edit.plan, find=first_only))
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-UNIQ-02", "EDIT-FUZZ-06"},
    suite_modules=["test_edit"],
    create=create,
)
