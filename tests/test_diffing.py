"""The reference's diffs: patches that apply, and bounded work whatever the texts.

A line diff of many equal lines used to compare every pair (20,000 blank lines: 39 s, after the
file was written); these tests hold the bound by correctness and by the call deadline, never by
a timed assertion (benchmarks/bench_edit.py measures the time).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolCall
from pytest_agenttools.assertions import apply_unified_patch
from pytest_agenttools.reference_impl import diffing
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

DEADLINE = 60.0
BLANK = 10_000


@pytest.mark.parametrize(
    ("old", "new", "first"),
    [
        ("", "a\n", 1),
        ("a\n", "", 1),
        ("a\nb\n", "a\nc\n", 2),
        ("a", "a\nb", 2),
        ("a\nb\nc", "a\nb", 2),
        ("same", "same", None),
    ],
)
def test_diff_roundtrip(old: str, new: str, first: int | None) -> None:
    change = diffing.compute(old, new, "f", 10**6)
    assert apply_unified_patch(old, change.patch) == new
    assert change.first_changed_line == first


LINES = st.lists(st.sampled_from(["a\n", "b\n", "\n", "c", "\r\n", "a"]), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(old=LINES, new=LINES, budget=st.sampled_from([diffing.FINE_BUDGET_S, 0.0]))
def test_patch_applies_fine_or_coarse(old: str, new: str, budget: float) -> None:
    change = diffing.compute(old, new, "f", 10**6, budget_s=budget)
    assert apply_unified_patch(old, change.patch) == new
    assert change.first_changed_line == diffing.first_changed_line(old, new)
    if budget:
        assert not change.coarse, "a small diff must get the fine alignment"


def test_common_lines_are_set_aside() -> None:
    old = "\n" * BLANK + "X\n" + "\n" * BLANK
    change = diffing.compute(old, old.replace("X", "Y"), "f", 10**6)
    assert not change.coarse
    assert change.diff == f"-{BLANK + 1:>5} X\n+{BLANK + 1:>5} Y"
    assert change.patch.count("\n@@") + change.patch.startswith("@@") <= 1


def test_many_equal_pairs_get_one_coarse_hunk() -> None:
    old, new = "\n" * (2 * BLANK), "-\n\n" * BLANK
    assert diffing.equal_pairs(diffing._lines(old), diffing._lines(new)) > diffing.MAX_EQUAL_PAIRS
    change = diffing.compute(old, new, "f", 10**7)
    assert change.coarse and apply_unified_patch(old, change.patch) == new
    assert change.patch.count("@@ -") == 1


def test_cancel_stops_the_fine_alignment() -> None:
    cancel = threading.Event()
    cancel.set()
    change = diffing.compute("a\nb\nc\n", "a\nB\nc\nd\n", "f", 10**6, cancel=cancel)
    assert change.coarse and apply_unified_patch("a\nb\nc\n", change.patch) == "a\nB\nc\nd\n"


def test_patch_and_display_are_cut_at_the_cap() -> None:
    old, new = "".join(f"{i}\n" for i in range(5000)), "".join(f"{i}!\n" for i in range(5000))
    change = diffing.compute(old, new, "f", 4096)
    assert change.patch_truncated and len(change.patch.encode()) <= 4096
    assert change.diff_truncated and len(change.diff.encode()) <= 4096


def _call(tool: str, cwd: Path, **arguments: Any) -> ToolCall:
    return ToolCall(tool=tool, arguments=arguments, cwd=str(cwd))


def test_pathological_edit_answers(reference: Any, tmp_path: Path) -> None:
    before = b"\n" * (2 * BLANK)
    after = b"-\n\n" * BLANK
    (tmp_path / "f.txt").write_bytes(before)
    call = _call(
        "edit", tmp_path, file_path="f.txt", old_string=before.decode(), new_string=after.decode()
    )
    result = reference.call(call, DEADLINE).with_call(call)
    assert not result.is_error, result.text
    assert (tmp_path / "f.txt").read_bytes() == after
    observation = result.observation
    assert observation.replacements == 1 and observation.first_changed_line == 1
    assert (
        observation.patch
        and apply_unified_patch(before.decode(), observation.patch).encode() == after
    )


def test_pathological_write_answers(reference: Any, tmp_path: Path) -> None:
    before = b"\n" * (2 * BLANK)
    after = b"-\n\n" * BLANK
    (tmp_path / "f.txt").write_bytes(before)
    call = _call("write", tmp_path, path="f.txt", content=after.decode())
    result = reference.call(call, DEADLINE).with_call(call)
    assert not result.is_error, result.text
    assert (tmp_path / "f.txt").read_bytes() == after
    observation = result.observation
    assert observation.bytes_written == len(after) and observation.first_changed_line == 1
    assert apply_unified_patch(before.decode(), result.details["patch"]).encode() == after


def test_cancelled_edit_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"one\n")
    cancel = threading.Event()
    cancel.set()
    arguments = {"file_path": "f.txt", "old_string": "one", "new_string": "1"}
    result = ReferenceTools().call("edit", arguments, str(tmp_path), cancel=cancel)
    assert result["isError"] and result["details"]["error"] == "aborted"
    assert (tmp_path / "f.txt").read_bytes() == b"one\n"
