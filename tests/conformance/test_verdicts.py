"""One rule per test: a clause's test judges its own rule, and reports "blocked by CLAUSE" when a
precondition that another clause owns does not hold.

For a sample of clauses, an implementation that breaks only the precondition's clause leaves the
dependent clause blocked (by that clause), and one that breaks only the clause's own rule fails
it. Also: READ-CAP-02 passes with the caps a real agent ships."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import suite_report

BROKEN = "pytest_agenttools.implementations.broken"

#: (clause, its precondition's clause, breaks only the precondition, breaks only the rule)
SAMPLE = [
    ("READ-PRES-03", "READ-DEV-02", "read_refuses_dev_null", "read_empty_blank"),
    ("READ-STREAM-02", "READ-STREAM-01", "read_refuses_big_files", "read_loads_whole_file"),
    ("WRITE-EOL-02", "WRITE-BOM-01", "write_drops_bom", "write_doubles_cr"),
    ("GREP-PRES-03", "GREP-ARG-01", "grep_accepts_bad_limit", "grep_vague_errors"),
    ("GLOB-PRES-03", "GLOB-ARG-01", "grep_accepts_bad_limit", "grep_vague_errors"),
    # racing writes into the file in place interleave or not by timing: not judged, every run
    ("WRITE-QUEUE-01", "WRITE-ATOMIC-01", "write_naive", "write_no_lock"),
]


@pytest.mark.parametrize(("clause", "owner", "breaks_owner", "breaks_rule"), SAMPLE)
@pytest.mark.kit_long(38)
def test_a_broken_precondition_blocks_and_a_broken_rule_fails(
    tmp_path: Path, clause: str, owner: str, breaks_owner: str, breaks_rule: str
) -> None:
    blocked = suite_report(tmp_path / "owner", clause, impl=f"{BROKEN}.{breaks_owner}:create")
    assert blocked["clauses"][clause] == "blocked", blocked["output"]
    assert blocked["blocked_by"][clause] == [owner]
    outcomes = {t["outcome"] for t in blocked["tests"] if t["clause"] == clause}
    assert "failed" not in outcomes and "blocked" in outcomes
    failed = suite_report(tmp_path / "rule", clause, impl=f"{BROKEN}.{breaks_rule}:create")
    assert failed["clauses"][clause] == "failed", failed["output"]
    assert not any(t["outcome"] == "blocked" for t in failed["tests"] if t["clause"] == clause)


def test_read_cap_02_passes_with_the_caps_real_agents_ship(tmp_path: Path) -> None:
    """``read.max_bytes = 51200`` and ``read.max_line_chars = 2000``, not configurable: the
    page's lines must fit the per-line cap, or READ-CAP-02 judges READ-CAP-03's cut."""
    data = suite_report(tmp_path, "READ-CAP-02", impl="tests.conformance.fixed_caps:create")
    assert data["implementation"]["manifest"]["limits"]["read.max_bytes"] == 51200
    assert data["clauses"]["READ-CAP-02"] == "passed", data["output"]


def test_write_path_01_says_what_went_wrong(tmp_path: Path) -> None:
    """A write that takes `..` lexically fails WRITE-PATH-01 with a sentence, not a bare
    FileNotFoundError from the test's own check."""
    data = suite_report(tmp_path, "WRITE-PATH-01", impl=f"{BROKEN}.write_lexical_dotdot:create")
    assert data["clauses"]["WRITE-PATH-01"] == "failed", data["output"]
    said = [t["assertion"] for t in data["tests"] if t["outcome"] == "failed"]
    assert said and all("FileNotFoundError" not in a for a in said), said
    assert all("taken lexically" in a for a in said), said


@pytest.mark.kit_long(30)
def test_memory_verdict_does_not_depend_on_what_ran_before(tmp_path: Path) -> None:
    """READ-STREAM-02 fails a whole-file loader run alone (first) and run after the tests that
    made the same in-process loader read 64 MiB files (last, in one process): it measures in an
    instance started for the measurement, so no earlier heap hides the load. Before, a heap grown
    by earlier calls let such a loader pass by test order."""
    impl = f"{BROKEN}.read_loads_whole_file:create"
    alone = suite_report(tmp_path / "alone", "READ-STREAM-02", impl=impl)
    assert alone["clauses"]["READ-STREAM-02"] == "failed", alone["output"]
    after = suite_report(tmp_path / "after", "READ-STREAM-01,READ-STREAM-02", impl=impl)
    order = [t["clause"] for t in after["tests"]]
    assert order.index("READ-STREAM-01") < order.index("READ-STREAM-02"), order
    assert after["clauses"]["READ-STREAM-02"] == "failed", after["output"]
    failed = [t for t in after["tests"] if t["clause"] == "READ-STREAM-02"]
    assert failed and all(t["outcome"] == "failed" for t in failed), failed
