"""The reporting plugin: collects every test report (on the xdist controller too, so the JSON
report is complete under ``-n auto``), judges expectations, writes the JSON and prints the
verdicts, which ``data.py`` computes and ``render.py`` draws."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools.harness.assertions import Blocked
from pytest_agenttools.report.data import (
    BLOCKED_PROPERTY,
    SUMMARY_PLUGIN,
    ConformanceReport,
    RunSelection,
)
from pytest_agenttools.report.render import Run, terminal_lines
from pytest_agenttools.run.selection import spec_of
from pytest_agenttools.run.session import get_session


def printable(text: str) -> str:
    """``text`` as valid UTF-8: a lone surrogate (from a tool's undecodable output) shown as
    ``\\udcxx``, since a report that cannot be encoded kills the xdist worker sending it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def sanitise(report: pytest.TestReport) -> None:
    """Every text of ``report`` made encodable (``printable``); a report without a lone
    surrogate is left as it is. A failure's long form becomes its plain text."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        path, lineno, message = longrepr
        report.longrepr = (printable(str(path)), lineno, printable(str(message)))
    elif longrepr is not None:
        text = report.longreprtext
        if printable(text) != text:
            report.longrepr = printable(text)
    report.sections = [(printable(k), printable(v)) for k, v in report.sections]
    report.user_properties = [
        (printable(str(k)), printable(v) if isinstance(v, str) else v)
        for k, v in report.user_properties
    ]


class TerminalSummary:
    """pytest's terminal section for the run: the conformance levels and the clauses that did
    not pass (drawn by ``render.py``), expectation problems, and where the report went."""

    def __init__(self, owner: ReportPlugin) -> None:
        self.owner = owner

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        owner = self.owner
        if owner.is_worker():
            return
        if owner.ran_conformance():
            spec = spec_of(owner.config)
            terminalreporter.section("agenttools conformance")
            run = Run.from_report(owner.report.to_json(spec), spec)
            verbose = owner.config.get_verbosity() > 0
            for line in terminal_lines(run, verbose=verbose, problems=False):
                terminalreporter.write_line(line)
        if owner.report.problems:
            strict = owner.expectations is not None and owner.expectations.strict
            terminalreporter.section("agenttools expectations", red=strict, yellow=not strict)
            for line in owner.report.problems:
                terminalreporter.write_line(line)
            if not strict:
                terminalreporter.write_line(
                    "(fatal with --agenttools-strict, or `agenttools run --strict`)"
                )
        if owner.path:
            terminalreporter.write_sep("-", f"agenttools report written to {owner.path}")


class SummaryFirst:
    """``--agenttools-summary-first``: the conformance levels and the clauses that did not pass,
    printed before pytest's failure details (when it has any to print), so the part a user needs
    comes first; the terminal section (or ``agenttools run``) prints them again at the end."""

    def __init__(self, owner: ReportPlugin) -> None:
        self.owner = owner

    # the outermost wrapper: its first half runs before pytest's own (FAILURES, ERRORS ...)
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Any:
        owner = self.owner
        stats = terminalreporter.stats
        if (
            not owner.is_worker()
            and owner.ran_conformance()
            and (stats.get("failed") or stats.get("error"))
        ):
            spec = spec_of(owner.config)
            terminalreporter.section("agenttools conformance (again after the failures)")
            run = Run.from_report(owner.report.to_json(spec), spec)
            for line in terminal_lines(run, problems=False):
                terminalreporter.write_line(line)
        return (yield)


class ReportPlugin:
    """Collects every test report, judges expectations, writes the JSON, prints the verdicts."""

    def __init__(self, config: pytest.Config, expectations: Any, path: str | None) -> None:
        self.config = config
        self.expectations = expectations
        self.path = path
        self.report = ConformanceReport(quick=get_session(config).settings.quick)
        self.worker_matched: set[str] | None = None

    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _is_controller(self) -> bool:
        return not self.is_worker() and self.config.pluginmanager.has_plugin("dsession")

    def ran_conformance(self) -> bool:
        return any(r.clause for r in self.report.tests.values())

    def pytest_configure(self, config: pytest.Config) -> None:
        # registered under its own name so that ``-p no:agenttools-summary`` can leave it out
        if not config.pluginmanager.is_blocked(SUMMARY_PLUGIN):
            config.pluginmanager.register(TerminalSummary(self), SUMMARY_PLUGIN)
        if config.getoption("agenttools_summary_first", None) or config.getini(
            "agenttools_summary_first"
        ):
            config.pluginmanager.register(SummaryFirst(self), "agenttools-summary-first")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self.expectations is not None:
            self.expectations.apply(items)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if self.expectations is not None:
            self.expectations.left_out(items)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        if call.excinfo is not None and isinstance(call.excinfo.value, Blocked):
            owner = call.excinfo.value.owner
            report.user_properties = [*report.user_properties, (BLOCKED_PROPERTY, owner)]
        sanitise(report)
        return report

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

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        agent = get_session(self.config)
        if self.is_worker():
            workeroutput = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput["agenttools_implementation"] = agent.describe()
            if self.expectations is not None:
                workeroutput["agenttools_matched"] = sorted(
                    f"{e.kind}:{e.id}" for e in self.expectations.seen()
                )
            agent.close()
            return
        if not self.report.implementation:
            self.report.implementation = agent.describe()
        agent.close()
        self.report.selection = RunSelection.from_config(self.config)
        if self.expectations is not None:
            matched = self.worker_matched if self._is_controller() else None
            for record in self.report.tests.values():
                if record.expectation:
                    self.expectations.record(record.expectation, record.outcome)
            self.report.expectations = self.expectations.summary(matched)
            self.report.problems = self.expectations.problems(matched)
            # a shard sees part of an entry's tests: whether it is stale is the merge's to judge
            gating = [
                p
                for p in self.report.problems
                if not (self.report.selection.shard and p.startswith("stale expectation"))
            ]
            if gating and self.expectations.strict and session.exitstatus == 0:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.path:
            self.report.write(self.path, spec_of(self.config))
