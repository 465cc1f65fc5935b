"""Results as data first (clause x outcome), rendered second (JSON file, terminal lines).

Reports arrive through ``pytest_runtest_logreport``, which also runs on the xdist controller,
so the JSON report is complete under ``-n auto``. Each report carries the test's clause in its
``user_properties``; the implementation's identity comes from the workers' ``workeroutput``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from .expectations import PROPERTY as EXPECTATION_PROPERTY
from .expectations import short_nodeid

CLAUSE_PROPERTY = "agenttools_clause"
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")
MESSAGE_CHARS = 4000


@dataclass
class TestRecord:
    nodeid: str
    clause: str | None
    outcome: str = "passed"
    duration: float = 0.0
    message: str = ""
    expectation: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "id": short_nodeid(self.nodeid),
            "clause": self.clause,
            "outcome": self.outcome,
            "duration": round(self.duration, 4),
            "message": self.message,
            "expectation": self.expectation,
        }


def _properties(report: pytest.TestReport) -> dict[str, str]:
    return {str(k): str(v) for k, v in report.user_properties}


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = report.longreprtext or ""
    return text[-MESSAGE_CHARS:]


def clause_outcome(outcomes: list[str]) -> str:
    """One verdict per clause: a failure wins, then an expected failure, then pass, then skip."""
    for verdict in ("failed", "error", "xfailed", "xpassed", "passed"):
        if verdict in outcomes:
            return verdict
    return "skipped"


@dataclass
class ConformanceReport:
    tests: dict[str, TestRecord] = field(default_factory=dict)
    implementation: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    expectations: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)

    def add(self, report: pytest.TestReport) -> None:
        props = _properties(report)
        record = self.tests.get(report.nodeid)
        if record is None:
            record = TestRecord(report.nodeid, props.get(CLAUSE_PROPERTY))
            self.tests[report.nodeid] = record
        record.expectation = props.get(EXPECTATION_PROPERTY, record.expectation)
        record.duration += report.duration
        wasxfail = hasattr(report, "wasxfail")
        if report.when == "call":
            if wasxfail:
                record.outcome = "xfailed" if report.skipped else "xpassed"
            else:
                record.outcome = report.outcome
            if not report.passed or wasxfail:
                record.message = _message(report) or getattr(report, "wasxfail", "")
        elif report.failed:
            record.outcome = "error"
            record.message = _message(report)
        elif report.skipped and report.when == "setup":
            record.outcome = "xfailed" if wasxfail else "skipped"
            record.message = _message(report) or getattr(report, "wasxfail", "")

    def summary(self) -> dict[str, int]:
        counts = Counter(r.outcome for r in self.tests.values())
        return {name: counts.get(name, 0) for name in OUTCOMES}

    def clauses(self) -> dict[str, str]:
        """One verdict per clause. A test skipped by an expectations entry is a known failure
        that was not run, so it counts as an expected failure, never as a pass."""
        grouped: dict[str, list[str]] = {}
        for record in self.tests.values():
            if record.clause:
                outcome = record.outcome
                if outcome == "skipped" and (record.expectation or "").startswith("skip:"):
                    outcome = "xfailed"
                grouped.setdefault(record.clause, []).append(outcome)
        return {cid: clause_outcome(outs) for cid, outs in sorted(grouped.items())}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "agenttools-report/1",
            "implementation": self.implementation,
            "summary": self.summary(),
            "duration": round(time.time() - self.started, 3),
            "clauses": self.clauses(),
            "expectations": self.expectations,
            "problems": self.problems,
            "tests": [r.to_json() for r in sorted(self.tests.values(), key=lambda r: r.nodeid)],
        }

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_json(), handle, indent=2, ensure_ascii=False)
            handle.write("\n")


class ReportPlugin:
    """Collects every test report, judges expectations, writes the JSON, prints the verdicts."""

    def __init__(self, config: pytest.Config, expectations: Any, path: str | None) -> None:
        self.config = config
        self.expectations = expectations
        self.path = path
        self.report = ConformanceReport()
        self.worker_matched: set[str] | None = None

    def _is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _is_controller(self) -> bool:
        return not self._is_worker() and self.config.pluginmanager.has_plugin("dsession")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        from . import markers

        for item in items:
            clause_id = markers.clause_of(item)
            if clause_id:
                item.user_properties.append((CLAUSE_PROPERTY, clause_id))
        if self.expectations is not None:
            self.expectations.apply(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.report.add(report)

    @pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown where xdist is absent
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {}) or {}
        if output.get("agenttools_implementation") and not self.report.implementation:
            self.report.implementation = output["agenttools_implementation"]
        if "agenttools_matched" in output:
            matched = set(output["agenttools_matched"])
            self.worker_matched = matched | (self.worker_matched or set())

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from .session import get_session

        agent = get_session(self.config)
        if self._is_worker():
            workeroutput = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput["agenttools_implementation"] = agent.describe()
            if self.expectations is not None:
                workeroutput["agenttools_matched"] = sorted(
                    f"{e.kind}:{e.id}" for e in self.expectations.entries if e.matched
                )
            agent.close()
            return
        if not self.report.implementation:
            self.report.implementation = agent.describe()
        agent.close()
        if self.expectations is not None:
            matched = self.worker_matched if self._is_controller() else None
            for record in self.report.tests.values():
                if record.expectation:
                    self.expectations.record(record.expectation, record.outcome)
            self.report.expectations = self.expectations.summary(matched)
            self.report.problems = self.expectations.problems(matched)
            if self.report.problems and self.expectations.strict and session.exitstatus == 0:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.path:
            self.report.write(self.path)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._is_worker():
            return
        if self.report.problems:
            strict = self.expectations is not None and self.expectations.strict
            terminalreporter.section("agenttools expectations", red=strict, yellow=not strict)
            for line in self.report.problems:
                terminalreporter.write_line(line)
            if not strict:
                terminalreporter.write_line("(fatal with --agenttools-strict)")
        if self.path:
            terminalreporter.write_sep("-", f"agenttools report written to {self.path}")
