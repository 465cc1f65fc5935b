"""Unit tests of the edit matcher: line-ending view, fuzzy view, and their maps back."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.implementations.reference.text_match import (
    FOLD,
    FuzzyView,
    LineEndingView,
    disproportionate,
    find_all,
    fold,
    locate,
)
from pytest_agenttools.spec.clauses import spec_dir


def test_fold_table_is_the_spec_table() -> None:
    """The reference folds exactly the characters of the spec's table ``edit.fuzzy_fold``."""
    data = tomllib.loads((spec_dir() / "30-edit.toml").read_text(encoding="utf-8"))
    (table,) = [t for t in data["table"] if t["name"] == "edit.fuzzy_fold"]
    columns = table["columns"]
    spec = {
        int(point.removeprefix("U+"), 16): row[columns.index("folds_to")]
        for row in table["rows"]
        for point in row[columns.index("code_points")].split()
    }
    assert {
        point: chr(target) if isinstance(target, int) else target for point, target in FOLD.items()
    } == spec


def test_line_ending_view_maps_offsets() -> None:
    view = LineEndingView("a\r\nb\rc\nd\r\n")
    assert view.text == "a\nb\nc\nd\n"
    assert [view.to_original(i) for i in range(len(view.text) + 1)] == [0, 1, 3, 4, 5, 6, 7, 8, 10]


def test_plain_text_is_its_own_view() -> None:
    view = LineEndingView("no carriage returns\n")
    assert view.text == view.original and view.to_original(5) == 5


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("“a” ‘b’", "\"a\" 'b'"),
        ("1–2—3−4", "1-2-3-4"),
        ("a\u00a0b\u3000c\u202fd", "a b c d"),
        ("trailing  \t", "trailing"),
        ("ｆｕｌｌ，", "full,"),
        ("cafe\u0301", "caf\u00e9"),
    ],
)
def test_fold(raw: str, folded: str) -> None:
    assert fold(raw) == folded


def test_fuzzy_span_covers_whole_clusters() -> None:
    text = "x cafe\u0301 y\n"
    matches, fuzzy = locate(text, "caf\u00e9")
    assert fuzzy and len(matches) == 1
    assert text[matches[0].start : matches[0].end] == "cafe\u0301"


def test_exact_wins_and_fuzzy_is_not_tried() -> None:
    matches, fuzzy = locate('"a" and “a”', '"a"')
    assert not fuzzy and [(m.start, m.end) for m in matches] == [(0, 3)]


def test_find_all_is_non_overlapping() -> None:
    assert find_all("aaaa", "aa") == [0, 2]


def test_disproportionate_thresholds() -> None:
    assert disproportionate("a\nb", "a" + " " * 1000 + "\nb")
    assert not disproportionate("a\nb", "a  \nb")
    assert disproportionate("x", "x\n\n\n\n")


def _lines(count: int, width: int = 1) -> str:
    return "\n".join("x" * width for _ in range(count))


@pytest.mark.parametrize(
    ("old", "matched", "refused"),
    [
        # by lines: at least max(old + 3, 2 * old) lines is refused, one fewer is not
        (_lines(1), _lines(4), True),
        (_lines(1), _lines(3), False),
        (_lines(2), _lines(5), True),
        (_lines(2), _lines(4), False),
        (_lines(5), _lines(10), True),
        (_lines(5), _lines(9), False),
        # by length (old of two lines or more): more than max(old + 500, 4 * old) characters,
        # leading and trailing blanks not counted
        ("a\nb", "a" + "x" * 501 + "\nb", True),
        ("a\nb", "a" + "x" * 500 + "\nb", False),
        ("a\nb", "  a" + "x" * 500 + "\nb  ", False),
        (_lines(2, 200), _lines(2, 802), True),
        (_lines(2, 200), _lines(2, 802)[1:], False),
        # one line asked for is never refused for its length alone
        ("x", "x" * 5000, False),
    ],
    ids=[
        "1-line-4",
        "1-line-3",
        "2-lines-5",
        "2-lines-4",
        "5-lines-10",
        "5-lines-9",
        "past-500",
        "at-500",
        "blanks-uncounted",
        "past-4x",
        "at-4x",
        "one-line-long",
    ],
)
def test_disproportionate_boundaries(old: str, matched: str, refused: bool) -> None:
    assert disproportionate(old, matched) is refused


ALPHABET = st.sampled_from([*"ab \t“”–-\u00a0'\"", "e\u0301", "\u00e9", "ｆ"])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    lines=st.lists(st.lists(ALPHABET, max_size=8).map("".join), min_size=1, max_size=6),
    start=st.integers(0, 40),
    length=st.integers(1, 12),
)
def test_every_fuzzy_match_maps_to_a_span_that_folds_back(
    lines: list[str], start: int, length: int
) -> None:
    text = "\n".join(lines)
    view = FuzzyView(text)
    needle = view.text[start : start + length]
    if not needle.strip():
        return
    for offset in find_all(view.text, needle):
        a, b = view.span(offset, offset + len(needle))
        assert 0 <= a < b <= len(text), "a folded match maps outside the text"
    matches, _ = locate(text, needle)
    for match in matches:
        assert fold(text[match.start : match.end]) == fold(needle)
