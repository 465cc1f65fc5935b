"""The display diff aligns every line with every other (as ``edit_quadratic_diff``) and never
looks at the cancel: an edit of the one unique line of a file of 20,000 repeated lines, cancelled
as soon as it was sent, still answers only when the minutes of alignment are over
(ROBUST-CANCEL-01)."""

import functools
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.edit_quadratic_diff import common_lines
from pytest_agenttools.implementations.reference import diffing, edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def compute(old: str, new: str, label: str, max_patch_bytes: int, **options: Any) -> Any:
    common_lines(old.splitlines(), new.splitlines(), cancel=None)
    return diffing.compute(old, new, label, max_patch_bytes)


def create() -> ReferenceTools:
    steps = edit.Steps(diff=compute)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"ROBUST-CANCEL-01"},
    suite_modules=["test_robust_extreme"],
    # the call it fails never ends by itself; a short deadline keeps the self-check quick
    pytest_args=["--agenttools-call-timeout=3"],
    create=create,
)
