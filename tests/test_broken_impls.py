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


NAIVE = [name for name in BROKEN if name.endswith("_naive")]


def test_each_tool_has_a_naive_implementation_that_declares_nothing() -> None:
    assert {name.split("_")[0] for name in NAIVE} >= {
        "read",
        "write",
        "edit",
        "grep",
        "glob",
        "bash",
    }


@pytest.mark.parametrize("name", NAIVE)
def test_declaring_less_never_scores_better(name: str) -> None:
    """A naive implementation declares no limits and no features; what it lacks must show as
    failed core MUST clauses, not as skipped ones."""
    import importlib

    from pytest_agenttools.clauses import CORE, load

    module = importlib.import_module(f"pytest_agenttools.broken.{name}")
    manifest = module.create().manifest()
    assert not manifest.get("limits") and not manifest.get("features"), (
        f"{name} must declare no limits and no features"
    )
    spec = load().by_id()
    must_core = [c for c in module.CAUGHT_BY if spec[c].level == "MUST"]
    assert must_core and all(spec[c].conformance_level == CORE for c in must_core), (
        f"{name} must be caught by core MUST clauses; CAUGHT_BY: {sorted(module.CAUGHT_BY)}"
    )
