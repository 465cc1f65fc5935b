"""An expectations file from a report's current failures: a baseline, new or pruned.

Entries are grouped at the widest scope that is still exact: a clause id when every test of the
clause that ran failed, else the failing test ids. A test that failed as expected (an ``xfail``
entry matched it) still fails, so it stays covered. A new entry gets a TODO reason for the
implementer to replace with the behaviour that breaks the clause; ``--agenttools-strict``
refuses a TODO reason.

Pruning regenerates a baseline from a new report without losing what people wrote: an entry
whose tests still fail (or that this report did not run) keeps its reason, an entry whose tests
all pass now is dropped, and failures no entry covers are added with a TODO reason.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_agenttools.run.expectations import Entry, matches

#: a test that still fails: an xfailed test failed, as its expectation said it would
STILL_FAILING = ("failed", "error", "xfailed")
TODO = "TODO: say which behaviour breaks this clause"

Test = Mapping[str, Any]


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _test_id(test: Test) -> str:
    return str(test.get("id") or test["nodeid"])


@dataclass(frozen=True)
class NewEntry:
    """An entry to write: its kind, id, reason and the comment that says why it is there."""

    kind: str
    id: str
    reason: str
    comment: str


def _failing_groups(tests: Sequence[Test], covered: set[str]) -> list[NewEntry]:
    """TODO entries for the failing tests not in ``covered`` (node ids)."""
    by_clause: dict[str, list[Test]] = {}
    loose: list[Test] = []
    for test in tests:
        if test.get("clause"):
            by_clause.setdefault(str(test["clause"]), []).append(test)
        elif test.get("outcome") in STILL_FAILING:
            loose.append(test)
    entries: list[NewEntry] = []
    for clause_id, group in sorted(by_clause.items()):
        failing = [t for t in group if t.get("outcome") in STILL_FAILING]
        fresh = [t for t in failing if t["nodeid"] not in covered]
        if not fresh:
            continue
        ran = [t for t in group if t.get("outcome") != "skipped"]
        if len(fresh) == len(ran):
            entries.append(NewEntry("xfail", clause_id, TODO, f"{len(fresh)} test(s)"))
        else:
            entries += [NewEntry("xfail", _test_id(t), TODO, clause_id) for t in fresh]
    entries += [
        NewEntry("xfail", _test_id(t), TODO, "no clause")
        for t in loose
        if t["nodeid"] not in covered
    ]
    return entries


def baseline_entries(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(id, comment)`` pairs for every current failure."""
    return [(e.id, e.comment) for e in _failing_groups(report.get("tests") or [], set())]


def _clause_facts(report: Mapping[str, Any]) -> dict[str, tuple[str, frozenset[str]]]:
    """Clause id -> (tool, tags), for matching ``tool:`` and ``tag:`` entries."""
    from pytest_agenttools.spec.clauses import load

    return {
        c.id: (c.tool, frozenset((*c.features, *c.tags)))
        for c in load().clauses
        if any(t.get("clause") == c.id for t in report.get("tests") or ())
    }


def _matched(entry: Entry, tests: Sequence[Test], facts: Mapping[str, Any]) -> list[Test]:
    """The tests of the report an existing entry matches (as the run that made it saw them)."""
    key = f"{entry.kind}:{entry.id}"
    found = []
    for test in tests:
        if test.get("expectation"):
            if test["expectation"] == key:
                found.append(test)
            continue
        clause = str(test["clause"]) if test.get("clause") else None
        tool, tags = facts.get(clause or "", (None, frozenset()))
        if matches(entry.id, str(test["nodeid"]), clause, tool, tags):
            found.append(test)
    return found


@dataclass
class Pruned:
    """A regenerated baseline: the entries to write and what changed."""

    entries: list[NewEntry] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    def describe(self, path: str) -> str:
        parts = [f"kept {len(self.kept)} entries with their reasons"]
        if self.dropped:
            parts.append(
                f"dropped {len(self.dropped)} whose tests pass now ({', '.join(self.dropped)})"
            )
        if self.added:
            parts.append(f"added {len(self.added)} with a TODO reason ({', '.join(self.added)})")
        return f"{path}: " + "; ".join(parts)


def prune(report: Mapping[str, Any], existing: Sequence[Entry]) -> Pruned:
    """Merge an existing baseline with a new report (see the module docstring)."""
    tests: list[Test] = list(report.get("tests") or [])
    facts = _clause_facts(report)
    out = Pruned()
    covered: set[str] = set()
    for entry in existing:
        found = _matched(entry, tests, facts)
        if (
            found
            and entry.kind == "xfail"
            and not any(t.get("outcome") in STILL_FAILING for t in found)
        ):
            out.dropped.append(entry.id)
            continue
        if not found:
            comment = "not in this report"
        elif entry.kind == "skip":
            comment = f"skips {len(found)} test(s)"
        else:
            comment = "still failing"
        out.entries.append(NewEntry(entry.kind, entry.id, entry.reason, comment))
        out.kept.append(entry.id)
        covered |= {str(t["nodeid"]) for t in found}
    fresh = _failing_groups(tests, covered)
    out.entries += fresh
    out.added = [e.id for e in fresh]
    return out


def header(report: Mapping[str, Any]) -> list[str]:
    impl = report.get("implementation") or {}
    return [
        f"# Expectations for {impl.get('name', '?')} {impl.get('version', '')}".rstrip(),
        "# Generated by `agenttools baseline` from the current failures. Replace every TODO with",
        "# the behaviour that breaks the clause, then gate on it in strict mode:",
        "#   agenttools run --expectations FILE --strict",
        "#   pytest ... --agenttools-expectations FILE --agenttools-strict",
        "# Strict mode fails the run when an entry's tests pass again (delete the entry) and",
        "# refuses entries whose reason still says TODO. `agenttools baseline --prune FILE` redoes",
        "# this file from a new report and keeps the reasons of the entries that still apply.",
        "",
    ]


def render(report: Mapping[str, Any], entries: Sequence[NewEntry]) -> str:
    lines = header(report)
    for entry in entries:
        lines += [
            f"[[{entry.kind}]]",
            f"id = {_toml_string(entry.id)}  # {entry.comment}",
            f"reason = {_toml_string(entry.reason)}",
            "",
        ]
    return "\n".join(lines)


def render_baseline(report: Mapping[str, Any]) -> str:
    """A new baseline: one TODO entry per current failure."""
    return render(report, _failing_groups(report.get("tests") or [], set()))


def write_atomically(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` in one step: a crash leaves the old file or the new one."""
    target = Path(path)
    handle, scratch = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(scratch, target)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise
