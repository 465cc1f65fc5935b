"""The reference's diffs: patches that apply, and bounded work whatever the texts.

A line diff of many equal lines used to compare every pair (20,000 blank lines: 39 s, after the
file was written); these tests hold the bound by correctness and by the call deadline, never by
a timed assertion (benchmarks/bench_edit.py measures the time).
"""

from __future__ import annotations

import difflib
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolCall
from pytest_agenttools.harness.assertions import apply_unified_patch
from pytest_agenttools.implementations.reference import diffing
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

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


# --- the same shapes as difflib's ------------------------------------------------------------
# A patch that applies is not enough: a hunk with too little or too much context, a wrong range
# in its header or a wrongly named opcode still applies. The reference's pieces are difflib's
# own algorithms over its own shapes, so each is held to difflib exactly.

SEQUENCES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d\n"]), max_size=30)


def _difflib_groups(codes: list[diffing.Opcode], context: int = 3) -> list[list[diffing.Opcode]]:
    """difflib's own grouping applied to opcodes we choose: a SequenceMatcher returns the
    opcodes it already holds instead of working them out."""
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, [], [])
    setattr(matcher, "opcodes", list(codes))  # noqa: B010 - not in the type stubs
    return [list(group) for group in matcher.get_grouped_opcodes(context)]


def _difflib_opcodes(a: list[str], b: list[str]) -> list[diffing.Opcode]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


@settings(max_examples=300, deadline=None)
@given(a=SEQUENCES, b=SEQUENCES, context=st.integers(0, 4))
# an equal run longer than twice the context, but not three times, splits the hunk
@example(a=["x\n", *["a\n"] * 8, "y\n"], b=["X\n", *["a\n"] * 8, "Y\n"], context=3)
def test_hunks_are_grouped_as_difflib_groups_them(a: list[str], b: list[str], context: int) -> None:
    for codes in (_difflib_opcodes(a, b), diffing.opcodes(a, b)[0]):
        assert list(diffing.grouped(codes, context)) == _difflib_groups(codes, context)


def test_no_opcodes_group_as_no_hunk() -> None:
    assert list(diffing.grouped([])) == _difflib_groups([]) == []


@settings(max_examples=300, deadline=None)
@given(a=SEQUENCES, b=SEQUENCES)
def test_patch_is_difflibs_unified_diff(a: list[str], b: list[str]) -> None:
    expected = "".join(difflib.unified_diff(a, b, "f", "f", lineterm="\n"))
    assert diffing.unified(a, b, _difflib_opcodes(a, b), "f") == expected.replace(
        "--- f\t\n", "--- f\n"
    )


@settings(max_examples=300, deadline=None)
@given(a=SEQUENCES, b=SEQUENCES, budget=st.sampled_from([diffing.FINE_BUDGET_S, 0.0]))
def test_opcodes_cover_both_sides_and_say_what_they_do(
    a: list[str], b: list[str], budget: float
) -> None:
    codes, coarse = diffing.opcodes(a, b, budget_s=budget)
    prefix, suffix = _common_ends(a, b)
    a_mid, b_mid = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    assert coarse == (budget == 0.0 and bool(a_mid) and bool(b_mid))
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j), f"{codes} leave a gap or overlap"
        assert {
            "equal": a[i1:i2] == b[j1:j2] and i2 > i1,
            "replace": i2 > i1 and j2 > j1,
            "delete": i2 > i1 and j1 == j2,
            "insert": i1 == i2 and j2 > j1,
        }[tag], f"{(tag, i1, i2, j1, j2)} does not do what its tag says in {codes}"
        i, j = i2, j2
    assert (i, j) == (len(a), len(b)), f"{codes} stop short of the ends"
    # the common first and last lines are set aside whole; between them, difflib's alignment
    # (or, out of budget, one hunk)
    ends = [("equal", 0, prefix, 0, prefix)] if prefix else []
    tail = [("equal", len(a) - suffix, len(a), len(b) - suffix, len(b))] if suffix else []
    if coarse:
        middle = [("replace", prefix, len(a) - suffix, prefix, len(b) - suffix)]
    else:
        fine = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False).get_opcodes()
        middle = [
            (t, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix) for t, i1, i2, j1, j2 in fine
        ]
    assert codes == ends + middle + tail


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many first lines, then how many of the remaining last lines, both sides share."""
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


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


def test_a_patch_exactly_at_the_cap_is_whole() -> None:
    old, new = "a\n", "b\n"
    whole = diffing.compute(old, new, "f", 10**6).patch
    at_cap = diffing.compute(old, new, "f", len(whole.encode()))
    assert (at_cap.patch, at_cap.patch_truncated) == (whole, False)
    one_less = diffing.compute(old, new, "f", len(whole.encode()) - 1)
    assert one_less.patch_truncated and one_less.patch == whole[:-1]


def test_a_cut_inside_a_character_drops_the_partial_character() -> None:
    old, new = "a\n", "é\n"
    whole = diffing.compute(old, new, "f", 10**6).patch
    # the cap falls between the two bytes of the last "é"
    cap = len(whole.encode()) - 2
    cut = diffing.compute(old, new, "f", cap)
    assert cut.patch_truncated and cut.patch == whole[:-2]
    assert len(cut.patch.encode()) == cap - 1
