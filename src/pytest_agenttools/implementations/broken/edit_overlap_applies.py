"""Overlapping entries of edits are not detected: the spans are spliced in file order and the
text between them is mangled."""

import functools
from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def plan(doc: edit.Document, edits: Sequence[edit.Edit], path: str) -> edit.Plan:
    found, fuzzy = edit.spans(doc, edits, path)
    return edit.Plan(edit.assemble(doc.text, found), len(found), fuzzy)


def create() -> ReferenceTools:
    steps = edit.Steps(plan=plan)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-MULTI-04"},
    suite_modules=["test_edit"],
    create=create,
)
