"""When old_string is not found, edit guesses: it replaces the most similar line of the file."""

import difflib
import functools
from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def plan(doc: edit.Document, edits: Sequence[edit.Edit], path: str) -> edit.Plan:
    try:
        return edit.plan(doc, edits, path)
    except ToolError as exc:
        if exc.code != "not_found" or len(edits) != 1:
            raise
        lines = doc.text.split("\n")
        guess = difflib.get_close_matches(edits[0].old, lines, n=1, cutoff=0.0)
        if not guess:
            raise
        guessed = edit.Edit(guess[0], edits[0].new, False)
        return edit.plan(doc, [guessed], path)


def create() -> ReferenceTools:
    steps = edit.Steps(plan=plan)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-NOTFOUND-02"},
    suite_modules=["test_edit"],
    create=create,
)
