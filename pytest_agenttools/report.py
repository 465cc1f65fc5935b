"""Results as data first (clause x outcome, per conformance level), rendered second.

Reports arrive through ``pytest_runtest_logreport``, which also runs on the xdist controller,
so the JSON report is complete under ``-n auto``. Each report carries the test's clause in its
``user_properties``; the implementation's identity comes from the workers' ``workeroutput``.

A clause passes when its tests ran and passed. A test skipped for any reason is *not run*, never
a pass: a MUST clause whose tests did not run is counted as not run in its conformance level
(``core``, or the optional feature it belongs to), with the reason.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from .clauses import CORE, Spec
from .expectations import PROPERTY as EXPECTATION_PROPERTY
from .expectations import short_nodeid
from .selection import CLAUSE_PROPERTY

REPORT_FORMAT = "agenttools-report/2"
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")
#: one verdict per clause; the counts of a level use these names
VERDICTS = ("passed", "failed", "expected", "not_run")
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


def clause_verdict(outcomes: list[str]) -> str:
    """One verdict per clause from its tests' outcomes (expectation skips count as xfailed).

    A failure wins, then an unexpected pass of an expected failure, then an expected failure,
    then a pass; a clause none of whose tests ran is ``skipped`` (not run).
    """
    for verdict in ("failed", "error", "xpassed", "xfailed", "passed"):
        if verdict in outcomes:
            return verdict
    return "skipped"


def level_verdict(verdict: str) -> str:
    """The clause verdict as one of VERDICTS (an unexpected pass is a pass)."""
    return {
        "passed": "passed",
        "xpassed": "passed",
        "failed": "failed",
        "error": "failed",
        "xfailed": "expected",
    }.get(verdict, "not_run")


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

    def _by_clause(self) -> dict[str, list[TestRecord]]:
        grouped: dict[str, list[TestRecord]] = {}
        for record in self.tests.values():
            if record.clause:
                grouped.setdefault(record.clause, []).append(record)
        return grouped

    def clauses(self) -> dict[str, str]:
        """One verdict per clause. A test skipped by an expectations entry is a known failure
        that was not run, so it counts as an expected failure, never as a pass."""
        out = {}
        for cid, records in sorted(self._by_clause().items()):
            outcomes = []
            for record in records:
                outcome = record.outcome
                if outcome == "skipped" and (record.expectation or "").startswith("skip:"):
                    outcome = "xfailed"
                outcomes.append(outcome)
            out[cid] = clause_verdict(outcomes)
        return out

    def not_run_reasons(self) -> dict[str, str]:
        """For each clause that did not run, why (the skip message of its first test)."""
        verdicts = self.clauses()
        reasons = {}
        for cid, records in self._by_clause().items():
            if verdicts.get(cid) == "skipped":
                reasons[cid] = next((r.message for r in records if r.message), "skipped")
        return reasons

    def levels(self, spec: Spec) -> dict[str, Any]:
        """Per conformance level (core, then each feature) and requirement level (MUST,
        SHOULD): how many clauses passed, failed, failed as expected, and did not run."""
        verdicts = self.clauses()
        declared = set((self.implementation.get("manifest") or {}).get("features", []))
        tools = set((self.implementation.get("manifest") or {}).get("tools", []))
        levels: dict[str, Any] = {}
        for clause in spec.active():
            undeclared = tools and clause.tool not in tools and not clause.for_every_implementation
            if clause.id not in verdicts or undeclared:
                continue  # a tool the implementation does not have is not part of its levels
            name = clause.conformance_level
            entry = levels.setdefault(
                name,
                {
                    "declared": name == CORE or all(f in declared for f in clause.features),
                    "MUST": dict.fromkeys(VERDICTS, 0),
                    "SHOULD": dict.fromkeys(VERDICTS, 0),
                },
            )
            entry[clause.level][level_verdict(verdicts[clause.id])] += 1
        ordered = {CORE: levels.pop(CORE)} if CORE in levels else {}
        ordered.update(sorted(levels.items()))
        return ordered

    def to_json(self, spec: Spec | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": REPORT_FORMAT,
            "implementation": self.implementation,
            "summary": self.summary(),
            "duration": round(time.time() - self.started, 3),
            "clauses": self.clauses(),
            "not_run": self.not_run_reasons(),
            "expectations": self.expectations,
            "problems": self.problems,
            "tests": [r.to_json() for r in sorted(self.tests.values(), key=lambda r: r.nodeid)],
        }
        if spec is not None:
            data["levels"] = self.levels(spec)
        return data

    def write(self, path: str, spec: Spec | None = None) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_json(spec), handle, indent=2, ensure_ascii=False)
            handle.write("\n")


def level_lines(levels: dict[str, Any]) -> list[str]:
    """One line per conformance level: MUST and SHOULD passed, failed, expected, not run."""
    lines = []
    for name, entry in levels.items():
        parts = []
        for requirement in ("MUST", "SHOULD"):
            counts = entry[requirement]
            total = sum(counts.values())
            if not total:
                continue
            shown = [f"{counts['passed']}/{total} passed"]
            shown += [
                f"{counts[k]} {label}"
                for k, label in (
                    ("failed", "failed"),
                    ("expected", "expected failures"),
                    ("not_run", "not run"),
                )
                if counts[k]
            ]
            parts.append(f"{requirement} " + ", ".join(shown))
        state = "" if entry["declared"] else " (not declared)"
        lines.append(f"{name}{state}: " + "; ".join(parts))
    return lines


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
        if self.expectations is not None:
            self.expectations.apply(items)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if self.expectations is not None:
            self.expectations.note_deselected(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.report.add(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {}) or {}
        if output.get("agenttools_implementation") and not self.report.implementation:
            self.report.implementation = output["agenttools_implementation"]
        if "agenttools_matched" in output:
            matched = set(output["agenttools_matched"])
            self.worker_matched = matched | (self.worker_matched or set())

    def _ran_conformance(self) -> bool:
        return any(r.clause for r in self.report.tests.values())

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
            from .selection import spec_of

            self.report.write(self.path, spec_of(self.config))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._is_worker():
            return
        if self._ran_conformance():
            from .selection import spec_of

            terminalreporter.section("agenttools conformance")
            name = self.report.implementation.get("name", "?")
            terminalreporter.write_line(f"implementation: {name}")
            for line in level_lines(self.report.levels(spec_of(self.config))):
                terminalreporter.write_line(line)
        if self.report.problems:
            strict = self.expectations is not None and self.expectations.strict
            terminalreporter.section("agenttools expectations", red=strict, yellow=not strict)
            for line in self.report.problems:
                terminalreporter.write_line(line)
            if not strict:
                terminalreporter.write_line("(fatal with --agenttools-strict)")
        if self.path:
            terminalreporter.write_sep("-", f"agenttools report written to {self.path}")
