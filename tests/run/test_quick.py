"""``--quick``: every clause judged at least once, a broken implementation failing the clauses
its full run fails, and every report form saying the run was quick and awarding no level."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pytest_agenttools.cli.runner import SuiteRun, run_batch
from pytest_agenttools.cli.selfcheck import broken_run
from pytest_agenttools.harness import markers
from pytest_agenttools.implementations.broken import _table as broken_table
from pytest_agenttools.report.render import Run, level_state, terminal_lines, to_html, to_markdown
from pytest_agenttools.run.quick import NOT_RUN_QUICK
from pytest_agenttools.run.selection import clause_info
from pytest_agenttools.spec.clauses import CORE, load
from tests.report.test_render import READ_CORE_MUST, SPEC, make_report

#: broken implementations whose defects show in a plain check (write_drops_bom), in the UTF-16
#: cases of parametrized tests (edit_utf16_as_utf8), in a property's examples
#: (edit_expands_dollar) and in tests that wait out a kill grace (bash_no_grace)
BROKEN = ("write_drops_bom", "edit_utf16_as_utf8", "edit_expands_dollar", "bash_no_grace")


class Collected:
    """Records each collected conformance test: its clause, and why quick leaves it out."""

    def __init__(self) -> None:
        self.tests: list[tuple[str, str, str | None, float]] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            info = clause_info(item)
            skip = item.get_closest_marker("skip")
            reason = str(skip.kwargs.get("reason", "")) if skip else None
            if info is not None:
                self.tests.append((item.nodeid, info.clause.id, reason, markers.seconds_of(item)))


@pytest.fixture(scope="module")
def collected() -> Collected:
    probe = Collected()
    args = [*SuiteRun().args(), "--agenttools-quick", "--collect-only", "-p", "no:cacheprovider"]
    assert pytest.main(args, plugins=[probe]) == 0
    assert probe.tests, "nothing was collected"
    return probe


def test_quick_judges_every_core_must_clause_at_least_once(collected: Collected) -> None:
    kept = {clause for _, clause, reason, _ in collected.tests if reason is None}
    core_must = {c.id for c in load().active() if c.level == "MUST" and c.conformance_level == CORE}
    with_tests = {clause for _, clause, _, _ in collected.tests}
    assert core_must <= with_tests, "every core MUST clause has tests"
    assert core_must - kept == set(), "a quick run leaves no core MUST clause unjudged"
    assert with_tests - kept == set(), "nor any other clause"


def test_quick_leaves_out_only_tests_that_wait(collected: Collected) -> None:
    left_out = [(nodeid, reason, s) for nodeid, _, reason, s in collected.tests if reason]
    assert left_out, "the suite has tests that wait out a timeout where a shorter one judges"
    for nodeid, reason, seconds in left_out:
        assert reason.startswith(NOT_RUN_QUICK), nodeid
        assert seconds > 0, f"{nodeid} does not wait, yet quick leaves it out"


def verdicts(data: dict[str, Any], clauses: set[str]) -> dict[str, str]:
    return {c: v for c, v in (data.get("clauses") or {}).items() if c in clauses}


@pytest.mark.kit_long(60)
def test_a_quick_run_fails_the_clauses_the_full_run_fails() -> None:
    runs = []
    for name in BROKEN:
        base = broken_run(name)
        # the full run judges every test (not only until a first failure), as a user's does;
        # the quick run takes its own hypothesis profile
        extra = tuple(a for a in base.extra if a != "--agenttools-first-failure")
        own = tuple(a for a in extra if not a.startswith("--agenttools-hypothesis-profile"))
        runs += [replace(base, extra=extra), replace(base, extra=own, options={"quick": True})]
    outcomes = run_batch(runs, jobs=2)
    for index, name in enumerate(BROKEN):
        broken, _ = broken_table.load(name)
        full, quick = outcomes[2 * index], outcomes[2 * index + 1]
        assert full.report and quick.report, (full.problem, quick.problem)
        failed_full = {
            c for c, v in verdicts(full.report, set(broken.caught_by)).items() if v == "failed"
        }
        assert failed_full == set(broken.caught_by), f"{name}: the full run"
        failed_quick = {
            c for c, v in verdicts(quick.report, set(broken.caught_by)).items() if v == "failed"
        }
        assert failed_quick == failed_full, f"{name}: the quick run must fail them too"
        assert quick.report["quick"] is True and full.report["quick"] is False
        assert all(level.get("provisional") for level in quick.report["levels"].values())


def quick_run(outcomes: dict[str, list[str]]) -> Run:
    data = make_report("alpha", outcomes)
    data["quick"] = True
    del data["levels"]  # computed from the report, as an older report's would be
    return Run.from_report(data, SPEC, "quick.json")


def test_every_form_says_quick_and_awards_no_level() -> None:
    every_read_must = {cid: ["passed"] for cid in READ_CORE_MUST}
    full = Run.from_report(make_report("alpha", every_read_must, tools=("read",)), SPEC)
    assert level_state(full.levels[CORE]) == "complete"
    data = make_report("alpha", every_read_must, tools=("read",))
    data["quick"] = True
    del data["levels"]
    quick = Run.from_report(data, SPEC, "quick.json")
    assert quick.levels[CORE]["provisional"] is True
    assert level_state(quick.levels[CORE]) == "provisional", "a quick run is never complete"
    lines = terminal_lines(quick)
    assert lines[1].startswith("  QUICK RUN (--quick)") and "no conformance level" in lines[1]
    assert lines[-1] == "  provisional (quick run): no conformance level awarded"
    assert not any("QUICK" in line for line in terminal_lines(full))
    markdown = to_markdown([quick])
    assert "**Quick run** (`--quick`)" in markdown and "provisional" in markdown
    assert "quick run" in markdown.splitlines()[2], "the column says it is a quick run"
    page = to_html([full, quick])
    assert page.count('class="level-complete"') == 1, "only the full run's level is complete"
    assert 'class="level-provisional"' in page and "no conformance level is awarded" in page


def test_a_failure_in_a_quick_run_is_still_a_failure() -> None:
    run = quick_run({READ_CORE_MUST[0]: ["failed"]})
    assert level_state(run.levels[CORE]) == "failed"
    assert run.verdict(READ_CORE_MUST[0]) == "failed"
