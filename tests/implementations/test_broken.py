"""The suite checks itself: each broken implementation fails the clause that names its defect.

This is ``agenttools selfcheck --broken-only``, one tool's broken implementations per test (so
xdist spreads the tools); each tool's runs share one warm child process (``run_batch``), and a
run executes only the tests of the clauses that must catch it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.cli.selfcheck import (
    Kill,
    broken_implementations,
    broken_run,
    render,
    run_selfcheck,
)
from pytest_agenttools.implementations.broken import _table as broken_table

BROKEN = broken_implementations()
TOOLS = sorted({name.split("_")[0] for name in BROKEN})
#: a tool's broken implementations run in batches of at most this many, one batch per test, so
#: xdist spreads a tool with many (bash) over several workers instead of running it last alone
BATCH = 8
BATCHES = [
    (tool, names[start : start + BATCH])
    for tool in TOOLS
    for names in [[name for name in BROKEN if name.split("_")[0] == tool]]
    for start in range(0, len(names), BATCH)
]


def test_there_are_broken_implementations_for_every_tool() -> None:
    assert {"read", "write", "edit", "grep", "glob", "bash"} <= set(TOOLS), TOOLS
    assert len(BROKEN) >= 20


def _verdict(kill: Kill) -> str | None:
    """What is wrong with one broken implementation's run, or None when it was caught."""
    if kill.problem:
        return f"{kill.name}: the run did not complete: {kill.problem}"
    if not kill.caught:
        return f"{kill.name} passed every clause: the suite does not catch its defect"
    if not kill.expected <= kill.caught:
        return (
            f"{kill.name} should fail {sorted(kill.expected)}, but the failing clauses are "
            f"{sorted(kill.caught)}"
        )
    if kill.exit_code != 1:
        return f"{kill.name}: pytest exited {kill.exit_code}, not 1 (tests failed)"
    if "caught" not in render([kill])[1]:
        return f"{kill.name}: the matrix does not say caught: {render([kill])[1]}"
    return None


def test_the_batches_hold_every_broken_implementation_once() -> None:
    assert sorted(name for _, names in BATCHES for name in names) == sorted(BROKEN)


#: about how long one batch of each tool takes on 2 busy cores (bash's wait out timeouts and
#: kill graces, read's FIFO opener its 20 s call bounds), so that the long ones start first
#: (tests/conftest.py)
BATCH_SECONDS = {"bash": 40, "read": 45, "edit": 30, "grep": 20, "robust": 49}


@pytest.mark.parametrize(
    ("tool", "names"),
    [
        pytest.param(tool, names, marks=pytest.mark.kit_long(BATCH_SECONDS.get(tool, 12)))
        for tool, names in BATCHES
    ],
    ids=[f"{names[0]}+{len(names) - 1}" for _, names in BATCHES],
)
@pytest.mark.kit_long(30)
def test_broken_implementations_are_caught(tool: str, names: list[str]) -> None:
    # two at a time: most runs wait (timeouts, kill graces, a fixed window), so a batch's two
    # forks share a core's worth of work without slowing each other
    kills = run_selfcheck(names, jobs=2)
    assert [kill.name for kill in kills] == names
    wrong = [verdict for verdict in map(_verdict, kills) if verdict]
    assert not wrong, f"{len(wrong)} of {len(names)} {tool} broken implementations:\n" + "\n".join(
        wrong
    )


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
    from pytest_agenttools.spec.clauses import CORE, load

    entry, _ = broken_table.load(name)
    manifest = entry.create().manifest()
    assert not manifest.get("limits") and not manifest.get("features"), (
        f"{name} must declare no limits and no features"
    )
    spec = load().by_id()
    must_core = [c for c in entry.caught_by if spec[c].level == "MUST"]
    assert must_core and all(spec[c].conformance_level == CORE for c in must_core), (
        f"{name} must be caught by core MUST clauses; caught_by: {sorted(entry.caught_by)}"
    )


SERVED = [name for name, entry in broken_table.table(BROKEN).items() if entry.served]


def test_broken_servers_are_run_over_stdio_and_serve(tmp_path: Path) -> None:
    """A broken server's defect is in the protocol layer, which only a run over stdio reaches;
    each starts and answers ``initialize`` (one that could not start would fail every clause
    and so look caught)."""
    assert len(SERVED) >= 5, SERVED
    for name in SERVED:
        run = broken_run(name)
        assert run.impl is None and run.cmd, name
        request = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
        # started elsewhere than the repository root, as selfcheck starts them
        command = shlex.split(run.cmd)
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path
        )
        try:
            assert proc.stdin and proc.stdout
            proc.stdin.write(request)
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline() or b"null")
        finally:
            proc.kill()  # one of them never ends by itself: that is its defect
            proc.wait(30)
        assert answer and answer["id"] == 1 and "manifest" in answer["result"], name


def test_one_batch_starts_the_biggest_runs_first_and_answers_in_order() -> None:
    """``agenttools selfcheck`` runs broken implementations and alternatives in one batch,
    biggest first; the rows still come back in the order asked, each with its own outcome."""
    from pytest_agenttools.cli.selfcheck import alternative_run, run_both, run_size

    small, big = "glob_anchors_name_patterns", "grep_no_cap"
    assert run_size(broken_run(big)) > run_size(broken_run(small))
    assert run_size(alternative_run("tagged")) > run_size(broken_run("bash_naive"))
    landed: list[str] = []
    kills, rows = run_both([small, big], [], jobs=2, progress=landed.append)
    assert [kill.name for kill in kills] == [small, big] and rows == []
    # each verdict as it lands, counted: whichever ends first is "1 of 2"
    assert [line.split(":")[0] for line in landed] == ["1 of 2", "2 of 2"], landed
    assert sorted(line.split()[3:5] for line in landed) == [[small, "caught"], [big, "caught"]]
    for kill in kills:
        assert kill.ok, f"{kill.name}: {kill.problem or sorted(kill.missed)}"
        assert kill.caught == broken_table.load(kill.name)[0].caught_by


def test_first_failure_skips_the_rest_of_a_failed_clause_only(tmp_path: Path) -> None:
    """``--agenttools-first-failure`` (every broken run has it): after a clause's first failure
    its later tests are skipped as not run, and its verdict stays failed; a passing clause runs
    every test; an expected failure is no failure. Without the flag every test runs."""
    from dataclasses import replace

    from pytest_agenttools.cli.runner import SuiteRun, run_batch

    first, second = (
        "test_write.py::test_readers_never_see_a_torn_file",
        "test_write.py::test_concurrent_writes_never_tear",
    )
    expected = tmp_path / "expectations.toml"
    expected.write_text(f'[[xfail]]\nid = "{first}"\nreason = "the in-place write tears it"\n')
    base = SuiteRun(
        impl="pytest_agenttools.implementations.broken.write_in_place:create",
        modules=("test_write",),
        clauses="WRITE-ATOMIC-01,WRITE-MODE-01",
        pytest_summary=False,
    )
    flag = ("--agenttools-first-failure",)
    every, once, expecting = run_batch(
        [
            base,
            replace(base, extra=flag),
            replace(base, extra=flag, expectations=str(expected)),
        ],
        jobs=3,
    )

    def outcomes(report: dict[str, Any]) -> dict[str, str]:
        return {t["nodeid"]: t["outcome"] for t in report["tests"]}

    assert outcomes(every.report)[first] == outcomes(every.report)[second] == "failed"
    got = outcomes(once.report)
    assert (got[first], got[second]) == ("failed", "skipped"), got
    assert once.report["clauses"]["WRITE-ATOMIC-01"] == "failed"
    modes = [n for n in got if "test_mode_kept" in n]
    assert len(modes) == 3 and all(got[n] == "passed" for n in modes), got
    got = outcomes(expecting.report)
    assert (got[first], got[second]) == ("xfailed", "failed"), got


def test_the_longest_runs_are_named_with_their_seconds() -> None:
    """selfcheck's last line: the runs that took longest (a batch lasts as long as its longest),
    wall seconds first; the JSON matrix gives every run's."""
    from pytest_agenttools.cli.selfcheck import Pass, render_longest

    kills = [
        Kill("quick", "", frozenset({"A-01"}), wall_s=1.26, cpu_s=0.8),
        Kill("waits", "", frozenset({"A-02"}), wall_s=31.04, cpu_s=2.96),
        Kill("busy", "", frozenset({"A-03"}), wall_s=9.5, cpu_s=8.1),
    ]
    rows = [Pass("tagged", "", "stdio", wall_s=20.0, cpu_s=None)]
    assert render_longest(kills, rows) == (
        "longest runs: waits 31.0 s (3.0 s CPU); tagged (stdio) 20.0 s; busy 9.5 s (8.1 s CPU)"
    )
    assert kills[1].to_json()["seconds"] == {"wall": 31.04, "cpu": 2.96}
    assert rows[0].to_json()["seconds"] == {"wall": 20.0, "cpu": None}


def test_every_broken_module_ends_in_one_checked_value() -> None:
    """The table is read whole: every module holds a ``Broken`` and none of the retired
    per-module constants (a misspelt one would otherwise be ignored)."""
    entries = broken_table.table()
    assert sorted(entries) == BROKEN and len(entries) >= 100
    assert all(entry.name == name for name, entry in entries.items())


def test_a_module_with_a_loose_constant_or_no_entry_is_an_error() -> None:
    import types

    loose = types.ModuleType("pytest_agenttools.implementations.broken.loose")
    loose.CAUGHT_BY = {"READ-NF-01"}  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"still sets \['CAUGHT_BY'\]"):
        broken_table.entry_of(loose)
    empty = types.ModuleType("pytest_agenttools.implementations.broken.empty")
    with pytest.raises(TypeError, match="must end in BROKEN = Broken"):
        broken_table.entry_of(empty)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"caught_by": set()}, "names the clauses"),
        ({"caught_by": {"read-nf-01"}}, "not clause ids"),
        ({"caught_by": {"READ-NF-01"}, "suite_modules": ["read"]}, "suite modules"),
    ],
)
def test_an_entry_is_checked_when_it_is_made(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        broken_table.Broken(create=lambda: None, **fields)
