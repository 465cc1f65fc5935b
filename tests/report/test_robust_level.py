"""The robustness clauses: their own conformance level, every implementation, transports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_agenttools.report.data import ConformanceReport, undeclared_tools
from pytest_agenttools.report.data import TestRecord as Record
from pytest_agenttools.spec.clauses import load
from tests.support import SERVERS, run_agenttools


def test_robust_clauses_form_their_own_level() -> None:
    robust = [c for c in load().active() if c.tool == "robust"]
    assert len(robust) >= 18
    assert all(c.conformance_level == "robust" for c in robust)
    assert all(c.for_every_implementation for c in robust)
    assert not any(c.for_every_implementation for c in load().active() if c.tool == "read")
    stdio_only = {c.id for c in robust if c.transports == ("stdio",)}
    assert {"ROBUST-LINE-01", "ROBUST-ID-01", "ROBUST-EOF-01"} <= stdio_only
    assert "ROBUST-FUZZ-01" not in stdio_only


def test_report_counts_robustness_apart_and_never_as_an_undeclared_tool() -> None:
    report = ConformanceReport()
    report.implementation = {"manifest": {"tools": ["read"], "features": []}}
    for nodeid, clause, outcome in [
        ("t.py::a", "ROBUST-ARGS-01", "passed"),
        ("t.py::b", "ROBUST-LINE-01", "skipped"),
        ("t.py::c", "READ-LN-01", "passed"),
    ]:
        report.tests[nodeid] = Record(nodeid, clause, outcome)
    levels = report.levels(load())
    must = sum(1 for c in load().active() if c.tool == "robust" and c.level == "MUST")
    assert levels["robust"]["MUST"]["passed"] == 1
    # the skipped clause and every robust clause the run did not select are not run
    assert levels["robust"]["MUST"]["not_run"] == must - 1
    undeclared = undeclared_tools(load(), report.implementation)
    assert set(undeclared) == {"write", "edit", "grep", "glob", "bash"}


def test_clause_with_unknown_transport_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "spec.toml"
    bad.write_text(
        '[[clause]]\nid = "ROBUST-X-01"\ntool = "robust"\nlevel = "MUST"\ntitle = "t"\n'
        'text = "t"\nrationale = "r"\ntransports = ["carrier-pigeon"]\n'
    )
    with pytest.raises(ValueError, match="unknown transports"):
        load(bad)


def test_stdio_clauses_are_not_run_in_process_with_the_reason(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = run_agenttools(
        "run",
        "--tools",
        "robust",
        "--report-json",
        str(report),
        "--",
        "-k",
        "request_ids or unknown_methods",
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data = json.loads(report.read_text())
    assert data["clauses"]["ROBUST-METHOD-01"] == "passed"
    assert data["clauses"]["ROBUST-ID-01"] == "skipped"
    assert "stdio" in data["not_run"]["ROBUST-ID-01"]
    must = sum(1 for c in load().active() if c.tool == "robust" and c.level == "MUST")
    assert data["levels"]["robust"]["MUST"] == {
        "passed": 1,
        "failed": 0,
        "expected": 0,
        "blocked": 0,
        "not_run": must - 1,  # ROBUST-ID-01 in process, and every clause the run left out
    }
    reasons = data["levels"]["robust"]["not_run_reasons"]
    assert sum(reasons.values()) == must - 1 and len(reasons) == 2


FRAGILE = SERVERS / "fragile_server.py"


def test_protocol_clauses_catch_a_naive_server(tmp_path: Path) -> None:
    """A loop that trusts every line fails the protocol clauses (they can fail)."""
    import shlex
    import sys

    report = tmp_path / "report.json"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(FRAGILE))}"
    run_agenttools(
        "run",
        "--tools",
        "robust",
        "--cmd",
        command,
        "--report-json",
        str(report),
        "--",
        "-k",
        "malformed_lines or request_ids or notifications",
        cwd=tmp_path,
        timeout=600,
    )
    clauses = json.loads(report.read_text())["clauses"]
    for ident in ("ROBUST-LINE-01", "ROBUST-ID-01", "ROBUST-ID-02"):
        assert clauses.get(ident) == "failed", (ident, clauses)


def test_one_name_for_the_robust_clauses_in_the_flag_the_marker_and_the_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_agenttools.cli.commands import main
    from pytest_agenttools.spec.clauses import LEVEL_TOOLS

    assert LEVEL_TOOLS == {"robust": "robust"}, "the level is named as the tool (--tools robust)"
    tagged = [c.id for c in load().active() if "robustness" in c.tags]
    assert tagged and all(c.tool != "robust" for c in load().by_id().values() if c.id in tagged)
    # "robustness" is a tag of other tools' clauses, so it is no alias: an error that says both
    assert main(["run", "--tools", "robustness"]) == 2
    said = capsys.readouterr().err
    assert "--tools robust" in said and "--features robustness" in said
