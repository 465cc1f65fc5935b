"""The blocked outcome: a test whose precondition another clause owns did not hold is reported
as "blocked by CLAUSE", in process and under xdist, and an expectations entry still matches it;
and a lone surrogate in a test's report text does not kill the xdist worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

BLOCKED_TESTS = """
from pytest_agenttools.harness.assertions import blocked_by, expect_error, precondition
from pytest_agenttools.harness.markers import clause

@clause("READ-ARG-05")
def test_blocked_by_a_precondition(agenttools_client):
    result = agenttools_client.read(path="missing.txt")
    with precondition("READ-OFF-01", "the read must succeed"):
        assert not result.is_error, "the read failed"
    raise AssertionError("never reached")

@clause("READ-NF-01")
def test_blocked_by_hand(agenttools_client):
    blocked_by("READ-DIR-01", "no directory listing")

@clause("READ-NF-01")
def test_passes(agenttools_client):
    expect_error(agenttools_client.read(path="missing.txt"))

@clause("READ-DIR-01")
def test_own_rule_fails(agenttools_client):
    with precondition("READ-NF-01"):
        pass
    assert False, "this clause's own rule"
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
@pytest.mark.kit_long(42)
def test_blocked_is_its_own_outcome_in_the_json(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(test_blocked=BLOCKED_TESTS)
    path = pytester.path / "r.json"
    result = pytester.runpytest_subprocess(
        *workers, f"--agenttools-report={path}", "-p", "no:cacheprovider"
    )
    assert result.ret == 1, "only the failure of a clause's own rule fails the run"
    report = json.loads(path.read_text())
    assert report["summary"]["blocked"] == 2
    assert report["summary"]["failed"] == 1
    tests = {t["id"].split("::")[-1]: t for t in report["tests"]}
    first = tests["test_blocked_by_a_precondition"]
    assert first["outcome"] == "blocked" and first["blocked_by"] == "READ-OFF-01"
    assert "blocked by READ-OFF-01: the read must succeed: the read failed" in first["message"]
    assert tests["test_blocked_by_hand"]["blocked_by"] == "READ-DIR-01"
    assert tests["test_passes"]["blocked_by"] is None
    assert tests["test_own_rule_fails"]["outcome"] == "failed"
    assert report["clauses"]["READ-ARG-05"] == "blocked"
    assert report["clauses"]["READ-NF-01"] == "blocked", "a blocked test keeps its clause unpassed"
    assert report["clauses"]["READ-DIR-01"] == "failed"
    assert report["blocked_by"] == {"READ-ARG-05": ["READ-OFF-01"], "READ-NF-01": ["READ-DIR-01"]}
    core = report["levels"]["core"]
    assert core["MUST"]["blocked"] + core["SHOULD"]["blocked"] == 2
    result.stdout.fnmatch_lines(["*BLOCK*READ-ARG-05*blocked by READ-OFF-01*"])


def test_an_expectations_entry_matches_a_blocked_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_blocked=BLOCKED_TESTS)
    expectations = pytester.makefile(
        ".toml", expect='[[xfail]]\nid = "READ-ARG-05"\nreason = "offsets are not refused"\n'
    )
    path = pytester.path / "r.json"
    result = pytester.runpytest(
        f"--agenttools-expectations={expectations}", f"--agenttools-report={path}"
    )
    report = json.loads(path.read_text())
    record = next(t for t in report["tests"] if t["clause"] == "READ-ARG-05")
    assert record["expectation"] == "xfail:READ-ARG-05"
    assert record["outcome"] == "blocked"
    assert report["expectations"]["unmatched"] == [] and report["expectations"]["stale"] == []
    assert "stale expectation" not in result.stdout.str()


SURROGATE = """
def test_surrogate_in_the_message():
    text = b"caf\\xff".decode("utf-8", "surrogateescape")
    assert text == "cafe", f"saw {text}"

def test_surrogate_in_a_skip():
    import pytest
    pytest.skip(b"\\xfe".decode("utf-8", "surrogateescape"))

def test_other():
    pass
"""


@pytest.mark.kit_long(30)
def test_a_lone_surrogate_does_not_kill_the_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_surrogate=SURROGATE)
    path: Path = pytester.path / "r.json"
    result = pytester.runpytest_subprocess(
        "-n", "2", f"--agenttools-report={path}", "-p", "no:cacheprovider"
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    tests = {t["id"].split("::")[-1]: t for t in json.loads(path.read_text())["tests"]}
    assert "\\udcff" in tests["test_surrogate_in_the_message"]["message"]
