"""The display diff aligns every line with every other (a full longest-common-subsequence table):
an edit of a file of many equal lines answers only after minutes, long after the file was
written. Only a cancel stops it."""

import functools
import threading
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import diffing, edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def common_lines(a: list[str], b: list[str], cancel: threading.Event | None) -> int:
    """The length of the longest common subsequence of lines, row by row: O(len(a) * len(b))."""
    previous = [0] * (len(b) + 1)
    for line in a:
        if cancel is not None and cancel.is_set():
            return -1
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if line == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def compute(old: str, new: str, label: str, max_patch_bytes: int, **options: Any) -> Any:
    common_lines(old.splitlines(), new.splitlines(), options.get("cancel"))
    return diffing.compute(old, new, label, max_patch_bytes)


def create() -> ReferenceTools:
    steps = edit.Steps(diff=compute)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-BOUND-01", "ROBUST-EXTREME-02"},
    suite_modules=["test_edit_bounds", "test_robust_extreme"],
    # the calls it fails wait for the kit's deadline; a short one keeps the self-check quick
    pytest_args=["--agenttools-call-timeout=3"],
    create=create,
)
