"""A fuzzy hit normalises the WHOLE file before the replacement (pi 0.73.1's scope bug)."""

import functools
from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, text_match
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def plan(doc: edit.Document, edits: Sequence[edit.Edit], path: str) -> edit.Plan:
    result = edit.plan(doc, edits, path)
    if result.fuzzy:
        folded = edit.Document(text_match.fold(doc.text), doc.encoding, doc.mode, doc.ending)
        result = edit.plan(folded, edits, path)
    return result


def create() -> ReferenceTools:
    steps = edit.Steps(plan=plan)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-FUZZ-02"},
    suite_modules=["test_edit", "test_edit_properties"],
    create=create,
)
