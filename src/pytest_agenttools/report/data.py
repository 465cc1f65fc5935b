"""Results as data (clause x outcome, per conformance level); ``render.py`` draws them.

Reports arrive through ``pytest_runtest_logreport``, which also runs on the xdist controller,
so the JSON report is complete under ``-n auto``. Each report carries the test's clause in its
``user_properties``; the implementation's identity comes from the workers' ``workeroutput``.

A clause passes when its tests ran and passed. A test skipped for any reason is *not run*, never
a pass, and so is a clause this run did not select (``--agenttools-tools``, ``-k`` ...): every
active clause of every declared tool is counted in its conformance level (``core``, or the
optional feature it belongs to) as passed, failed, failed as expected or not run, and each clause
that did not run has its reason. A partial run therefore never looks like a complete one.

A test whose precondition, owned by another clause, does not hold (``harness.assertions``:
``blocked_by``, ``precondition``) is *blocked*: outcome ``blocked``, with ``blocked_by`` naming
that clause. It did not judge its own clause, so a blocked clause is neither failed nor passed:
it counts as ``blocked`` in its level (a blocked MUST leaves the level incomplete).

The JSON (format ``agenttools-report/2``) is the report; every other form (the terminal summary,
Markdown, the HTML page) is drawn from it by ``render.py``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_agenttools.run.expectations import PROPERTY as EXPECTATION_PROPERTY
from pytest_agenttools.run.expectations import short_nodeid
from pytest_agenttools.run.selection import CLAUSE_PROPERTY
from pytest_agenttools.spec.clauses import CORE, Clause, Spec

REPORT_FORMAT = "agenttools-report/2"
OUTCOMES = ("passed", "failed", "blocked", "skipped", "xfailed", "xpassed", "error")
#: one verdict per clause; the counts of a level use these names
VERDICTS = ("passed", "failed", "expected", "blocked", "not_run")
#: the user property a blocked test's report carries: the clause id whose precondition failed
BLOCKED_PROPERTY = "agenttools_blocked_by"
MESSAGE_CHARS = 4000
ASSERTION_CHARS = 600
NOT_RUN_PREFIX = "not run: "
#: the plugin name of the terminal summary; ``-p no:agenttools-summary`` leaves it out (the
#: ``agenttools`` command does, and prints the same summary itself after pytest's last line)
SUMMARY_PLUGIN = "agenttools-summary"


@dataclass
class TestRecord:
    nodeid: str
    clause: str | None
    outcome: str = "passed"
    duration: float = 0.0
    message: str = ""
    assertion: str = ""
    expectation: str | None = None
    blocked_by: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TestRecord:
        return cls(
            nodeid=str(data["nodeid"]),
            clause=data.get("clause"),
            outcome=str(data.get("outcome") or "passed"),
            duration=float(data.get("duration") or 0.0),
            message=str(data.get("message") or ""),
            assertion=str(data.get("assertion") or ""),
            expectation=data.get("expectation"),
            blocked_by=data.get("blocked_by"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "id": short_nodeid(self.nodeid),
            "clause": self.clause,
            "outcome": self.outcome,
            "duration": round(self.duration, 4),
            "message": self.message,
            "assertion": self.assertion,
            "expectation": self.expectation,
            "blocked_by": self.blocked_by,
        }


def _properties(report: pytest.TestReport) -> dict[str, str]:
    return {str(k): str(v) for k, v in report.user_properties}


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = report.longreprtext or ""
    return text[-MESSAGE_CHARS:]


def assertion_of(message: str) -> str:
    """The failing assertion of a pytest failure text: its ``E`` lines, else its last line."""
    lines = [line[1:].strip() for line in message.splitlines() if line.startswith("E ")]
    if not lines:
        lines = [line.strip() for line in message.splitlines() if line.strip()][-1:]
    return "\n".join(lines)[:ASSERTION_CHARS]


def _assertion(report: pytest.TestReport) -> str:
    """What failed, in one place: pytest's crash message (the assertion with its explanation)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if isinstance(message, str) and message.strip():
        return message.strip()[:ASSERTION_CHARS]
    return assertion_of(report.longreprtext or "")


def clause_verdict(outcomes: Sequence[str]) -> str:
    """One verdict per clause from its tests' outcomes (expectation skips count as xfailed).

    A failure wins, then an unexpected pass of an expected failure, then an expected failure,
    then a blocked test (a clause one of whose tests could not judge it has not passed), then a
    pass; a clause none of whose tests ran is ``skipped`` (not run).
    """
    for verdict in ("failed", "error", "xpassed", "xfailed", "blocked", "passed"):
        if verdict in outcomes:
            return verdict
    return "skipped"


def level_verdict(verdict: str | None) -> str:
    """The clause verdict as one of VERDICTS (an unexpected pass is a pass)."""
    return {
        "passed": "passed",
        "xpassed": "passed",
        "failed": "failed",
        "error": "failed",
        "xfailed": "expected",
        "blocked": "blocked",
    }.get(verdict or "", "not_run")


def why_not_run(message: str) -> str:
    """A skip message as a reason shared by every clause it applies to (without pytest's
    "Skipped:" and the kit's "not run:" prefixes)."""
    text = message.strip()
    for prefix in ("Skipped:", NOT_RUN_PREFIX):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    return text.splitlines()[0] if text else "skipped"


def applies(clause: Clause, tools: frozenset[str] | None) -> bool:
    """Whether the clause is part of an implementation's levels (``tools``: its declared tools,
    None when no manifest is known). A clause "tool" that is no tool (the robustness clauses)
    applies to every implementation, whatever tools it declares."""
    return tools is None or clause.tool in tools or clause.for_every_implementation


def declared_tools(implementation: Mapping[str, Any]) -> frozenset[str] | None:
    manifest = implementation.get("manifest")
    if not isinstance(manifest, Mapping) or "tools" not in manifest:
        return None
    return frozenset(str(t) for t in manifest.get("tools") or ())


def compute_levels(
    spec: Spec,
    verdicts: Mapping[str, str],
    not_run: Mapping[str, str],
    implementation: Mapping[str, Any],
    *,
    provisional: bool = False,
) -> dict[str, Any]:
    """Per conformance level (core, then each feature) and requirement level (MUST, SHOULD):
    how many clauses passed, failed, failed as expected, were blocked by another clause's
    precondition and did not run, and why not.

    Every active clause of a declared tool counts, whether or not this run selected it.
    ``provisional`` (a quick run): each level says so, and none is awarded.
    """
    manifest = implementation.get("manifest")
    features = set(manifest.get("features") or ()) if isinstance(manifest, Mapping) else set()
    tools = declared_tools(implementation)
    levels: dict[str, Any] = {}
    for clause in spec.active():
        if not applies(clause, tools):
            continue  # a tool the implementation does not have is not part of its levels
        name = clause.conformance_level
        entry = levels.setdefault(
            name,
            {
                "declared": name == CORE or all(f in features for f in clause.features),
                "MUST": dict.fromkeys(VERDICTS, 0),
                "SHOULD": dict.fromkeys(VERDICTS, 0),
                "not_run_reasons": {},
                **({"provisional": True} if provisional else {}),
            },
        )
        verdict = level_verdict(verdicts.get(clause.id))
        entry[clause.level][verdict] += 1
        if verdict == "not_run":
            reason = why_not_run(not_run.get(clause.id, "not in this run"))
            entry["not_run_reasons"][reason] = entry["not_run_reasons"].get(reason, 0) + 1
    ordered = {CORE: levels.pop(CORE)} if CORE in levels else {}
    ordered.update(sorted(levels.items()))
    return ordered


def undeclared_tools(spec: Spec, implementation: Mapping[str, Any]) -> dict[str, int]:
    """Tools with clauses that the implementation does not declare, with their clause counts."""
    tools = declared_tools(implementation)
    if tools is None:
        return {}
    counts = Counter(c.tool for c in spec.active() if not applies(c, tools))
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class RunSelection:
    """What part of the suite a run chose; names the reason a clause was not selected."""

    tools: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    keyword: str = ""
    markers: str = ""
    paths: tuple[str, ...] = ()
    #: ``K/N`` when the run was one shard of a split run (``run.shard``), else empty
    shard: str = ""

    @classmethod
    def from_config(cls, config: pytest.Config) -> RunSelection:
        from pytest_agenttools.run.options import option
        from pytest_agenttools.run.selection import split_list
        from pytest_agenttools.run.session import get_session
        from pytest_agenttools.run.shard import Shard
        from pytest_agenttools.spec.clauses import suite_dir

        settings = get_session(config).settings
        suite = str(suite_dir())
        whole = {"pytest_agenttools.conformance", suite, suite + "/"}
        shard = settings.of(option("shard"))
        return cls(
            shard=str(Shard.parse(shard)) if shard else "",
            tools=tuple(sorted(split_list(settings.tools))),
            features=tuple(sorted(split_list(settings.features))),
            keyword=str(getattr(config.option, "keyword", "") or ""),
            markers=str(getattr(config.option, "markexpr", "") or ""),
            paths=tuple(a for a in config.args if a not in whole),
        )

    def describe(self) -> str:
        parts = []
        if self.tools:
            parts.append(f"tools {','.join(self.tools)}")
        if self.features:
            parts.append(f"features {','.join(self.features)}")
        if self.keyword:
            parts.append(f"-k {self.keyword!r}")
        if self.markers:
            parts.append(f"-m {self.markers!r}")
        if self.paths:
            parts.append("tests " + " ".join(short_nodeid(p) for p in self.paths))
        if self.shard:
            parts.append(f"shard {self.shard}")
        return "; ".join(parts)

    def reason(self) -> str:
        described = self.describe()
        return f"not selected by this run ({described})" if described else "not in this run"

    def to_json(self) -> dict[str, Any]:
        return {
            "tools": list(self.tools),
            "features": list(self.features),
            "keyword": self.keyword,
            "markers": self.markers,
            "paths": list(self.paths),
            "shard": self.shard,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunSelection:
        return cls(
            tools=tuple(data.get("tools") or ()),
            features=tuple(data.get("features") or ()),
            keyword=str(data.get("keyword") or ""),
            markers=str(data.get("markers") or ""),
            paths=tuple(data.get("paths") or ()),
            shard=str(data.get("shard") or ""),
        )


@dataclass
class ConformanceReport:
    tests: dict[str, TestRecord] = field(default_factory=dict)
    implementation: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    expectations: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    selection: RunSelection = field(default_factory=RunSelection)
    #: a quick run (``run.quick``): its verdicts are provisional and award no level
    quick: bool = False

    def add(self, report: pytest.TestReport) -> None:
        props = _properties(report)
        record = self.tests.get(report.nodeid)
        if record is None:
            record = TestRecord(report.nodeid, props.get(CLAUSE_PROPERTY))
            self.tests[report.nodeid] = record
        record.expectation = props.get(EXPECTATION_PROPERTY, record.expectation)
        record.duration += report.duration
        wasxfail = hasattr(report, "wasxfail")
        blocked = props.get(BLOCKED_PROPERTY)
        if report.when == "call":
            if wasxfail:
                record.outcome = "xfailed" if report.skipped else "xpassed"
            elif blocked and report.skipped:
                record.outcome = "blocked"
                record.blocked_by = blocked
            else:
                record.outcome = report.outcome
            if not report.passed or wasxfail:
                record.message = _message(report) or getattr(report, "wasxfail", "")
            if report.failed or (wasxfail and report.skipped):
                record.assertion = _assertion(report)
        elif report.failed:
            record.outcome = "error"
            record.message = _message(report)
            record.assertion = _assertion(report)
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
        """One verdict per clause that this run selected. A test skipped by an expectations
        entry is a known failure that was not run: an expected failure, never a pass."""
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

    def blocked(self) -> dict[str, list[str]]:
        """For each blocked clause, the clauses whose preconditions blocked its tests."""
        verdicts = self.clauses()
        out: dict[str, list[str]] = {}
        for cid, records in sorted(self._by_clause().items()):
            if verdicts.get(cid) == "blocked":
                out[cid] = sorted({r.blocked_by for r in records if r.blocked_by})
        return out

    def not_run_reasons(self, spec: Spec | None = None) -> dict[str, str]:
        """For each clause that did not run, why: the skip message of its first test, or (with
        the spec) that this run did not select it."""
        verdicts = self.clauses()
        reasons = {}
        for cid, records in self._by_clause().items():
            if verdicts.get(cid) == "skipped":
                reasons[cid] = next((r.message for r in records if r.message), "skipped")
        if spec is not None:
            tools = declared_tools(self.implementation)
            for clause in spec.active():
                if clause.id not in verdicts and applies(clause, tools):
                    reasons[clause.id] = self.selection.reason()
        return dict(sorted(reasons.items()))

    def levels(self, spec: Spec) -> dict[str, Any]:
        """The conformance levels of this run (``compute_levels``)."""
        return compute_levels(spec, self.clauses(), self.not_run_reasons(spec), self.implementation)

    def to_json(self, spec: Spec | None = None) -> dict[str, Any]:
        verdicts = self.clauses()
        not_run = self.not_run_reasons(spec)
        data: dict[str, Any] = {
            "format": REPORT_FORMAT,
            "implementation": self.implementation,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "selection": self.selection.to_json(),
            "quick": self.quick,
            "summary": self.summary(),
            "duration": round(time.time() - self.started, 3),
            "clauses": verdicts,
            "not_run": not_run,
            "blocked_by": self.blocked(),
            "expectations": self.expectations,
            "problems": self.problems,
            "tests": [r.to_json() for r in sorted(self.tests.values(), key=lambda r: r.nodeid)],
        }
        if spec is not None:
            data["levels"] = compute_levels(
                spec, verdicts, not_run, self.implementation, provisional=self.quick
            )
            data["undeclared_tools"] = undeclared_tools(spec, self.implementation)
        return data

    def write(self, path: str, spec: Spec | None = None) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_json(spec), handle, indent=2, ensure_ascii=False)
            handle.write("\n")
