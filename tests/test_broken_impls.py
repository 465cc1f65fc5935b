"""The suite checks itself: each broken implementation fails the clause that names its defect.

This is ``agenttools selfcheck`` one broken implementation per test, so xdist spreads them.
"""

from __future__ import annotations

import pytest

from pytest_agenttools.selfcheck import broken_implementations, render, run_one

BROKEN = broken_implementations()


def test_there_are_broken_implementations_for_every_tool() -> None:
    prefixes = {name.split("_")[0] for name in BROKEN}
    assert {"read", "write", "edit", "grep", "glob", "bash"} <= prefixes, prefixes
    assert len(BROKEN) >= 20


@pytest.mark.parametrize("name", BROKEN)
def test_broken_implementation_is_caught(name: str) -> None:
    kill = run_one(name)
    assert not kill.problem, kill.problem
    assert kill.caught, f"{name} passed every clause: the suite does not catch its defect"
    assert kill.expected <= kill.caught, (
        f"{name} should fail {sorted(kill.expected)}, but the failing clauses are "
        f"{sorted(kill.caught)}"
    )
    assert kill.exit_code == 1
    assert "caught" in render([kill])[1]
