"""``--agenttools-shard K/N``: one of N parts of a run, chosen the same way on every machine.

The unit of a split is a clause: every test of one clause lands in the same shard, so a clause's
verdict (failed from its first failing test, blocked, passed) is made by one run and the merged
report (``report.merge``) equals an unsharded one. Tests that name no clause are kept together
by module. Groups are dealt longest first (a test marked ``agenttools_long`` weighs its seconds,
any other test one) to the lightest shard, ties to the lowest; the deal depends only on the
collected tests, which are the same for the same kit, implementation and selection, so shards
made on different machines fit together. pytest-xdist runs each shard as it runs a whole run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pytest

SHAPE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
MAX_SHARDS = 1000

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (from 1) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = SHAPE.match(text)
        if not match:
            raise pytest.UsageError(
                f"--agenttools-shard={text!r}: write K/N, the K-th of N shards (e.g. 2/4)"
            )
        index, count = int(match[1]), int(match[2])
        if not 1 <= count <= MAX_SHARDS:
            raise pytest.UsageError(
                f"--agenttools-shard={text!r}: N must be 1 to {MAX_SHARDS}, the number of shards"
            )
        if not 1 <= index <= count:
            raise pytest.UsageError(
                f"--agenttools-shard={text!r}: K must be 1 to {count} (shards count from 1)"
            )
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def deal(
    items: Sequence[T],
    count: int,
    group_of: Callable[[T], str],
    weight_of: Callable[[T], float],
) -> list[list[T]]:
    """``items`` split into ``count`` lists, whole groups each, in their first order."""
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(item)
    weights = {key: sum(weight_of(i) for i in members) for key, members in groups.items()}
    loads = [0.0] * count
    place: dict[str, int] = {}
    for key in sorted(groups, key=lambda k: (-weights[k], k)):
        lightest = min(range(count), key=lambda n: (loads[n], n))
        place[key] = lightest
        loads[lightest] += weights[key]
    shards: list[list[T]] = [[] for _ in range(count)]
    for item in items:
        shards[place[group_of(item)]].append(item)
    return shards
