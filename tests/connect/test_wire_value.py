"""``wire_value`` gives exactly what one trip through JSON gives, or the same refusal.

Plain JSON data is copied without the trip (``contract._plain_copy``); these properties hold that
shortcut to the trip itself, for values JSON carries and values it does not.
"""

from __future__ import annotations

import json
import math
from collections import UserDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.harness.contract import ContractViolation, wire_value


class Text(str):
    """A str subclass: JSON turns it into a plain str."""


class Number(int):
    """An int subclass (as an IntEnum member is)."""


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**4000, max_value=2**5000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.text().map(Text)
    | st.integers(-5, 5).map(Number)
    # lone surrogates: JSON escapes them and they come back
    | st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=3)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.dictionaries(st.integers(-3, 3) | st.booleans() | st.none(), inner, max_size=3)
    ),
    max_leaves=12,
)


def by_the_trip(value: Any) -> Any:
    """What JSON carries back, or the type of the refusal."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (ValueError, TypeError, RecursionError) as exc:
        return type(exc)


def by_wire_value(value: Any) -> Any:
    try:
        return wire_value(value)
    except ContractViolation:
        return ContractViolation


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (``1 == 1.0 == True`` is not enough), and
    NaN equal to NaN (a value that reaches here carried none)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@settings(max_examples=400)
@given(VALUES)
def test_wire_value_is_the_json_trip(value: Any) -> None:
    trip = by_the_trip(value)
    got = by_wire_value(value)
    if isinstance(trip, type):
        assert got is ContractViolation, (value, got)
    else:
        assert same(got, trip), (value, got, trip)


@given(VALUES)
def test_the_copy_shares_no_container_with_the_value(value: Any) -> None:
    """The implementation may change what it was given; the test's own value must not change."""
    copied = by_wire_value(value)
    containers = {id(v) for v in _containers(value)}
    assert not any(id(v) in containers for v in _containers(copied))


def _containers(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict | list | tuple):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            found += _containers(item)
    return found


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (("a", 1), ["a", 1]),
        ({"k": (1, 2)}, {"k": [1, 2]}),
        ({1: "x", None: "y"}, {"1": "x", "null": "y"}),
        (Text("t"), "t"),
        ("\ud800", "\ud800"),
        # two escaped halves read back as one character
        ("a\ud800\udc00", "a\U00010000"),
        (-0.0, -0.0),
    ],
    ids=[
        "tuple",
        "nested-tuple",
        "keys",
        "str-subclass",
        "lone-surrogate",
        "surrogate-pair",
        "negative-zero",
    ],
)
def test_values_json_changes_come_back_changed(value: Any, expected: Any) -> None:
    got = wire_value(value)
    assert same(got, expected), got
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    "value",
    [
        math.nan,
        [1, math.inf],
        {"x": -math.inf},
        {"x": object()},
        UserDict(a=1),
        10**5000,
    ],
    ids=["nan", "inf-in-list", "minus-inf", "object", "mapping-not-dict", "huge-int"],
)
def test_what_json_cannot_carry_is_refused(value: Any) -> None:
    with pytest.raises(ContractViolation):
        wire_value(value)


def test_deep_and_cyclic_values_are_refused_not_crashed() -> None:
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ContractViolation):
        wire_value(deep)
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(ContractViolation):
        wire_value(cyclic)
    fine: Any = "x"
    for _ in range(200):
        fine = {"k": fine}
    assert same(wire_value(fine), fine)


def test_an_int_json_carries_under_the_lowest_digit_cap_is_copied_and_a_longer_one_is_not() -> None:
    """Python may cap int-to-text conversion at 640 digits: an int the copy takes as it is must
    be one the trip carries under that cap too; a longer one is left to the trip."""
    import sys

    within, beyond = 2**2048 - 1, 10**700
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert wire_value([within]) == [within]
        with pytest.raises(ContractViolation):
            wire_value([beyond])
    finally:
        sys.set_int_max_str_digits(previous)


def test_a_megabyte_string_is_not_copied() -> None:
    text = "\u00e9" * 1_000_000
    assert wire_value({"content": text})["content"] is text
