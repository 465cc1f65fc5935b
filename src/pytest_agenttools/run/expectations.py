"""Known failures and skips as data, checked both ways.

An expectations file (TOML) lists ``[[xfail]]`` and ``[[skip]]`` entries, each with an ``id``
and a ``reason``. An id is a clause id (``READ-LN-01``), a node id or node-id prefix
(``test_read.py::test_line_numbers``), ``tool:NAME`` (every clause of a tool) or ``tag:NAME``
(every clause with that manifest feature or topic tag, e.g. ``tag:read.pdf``, ``tag:crlf``).
Entries that match no test are *unmatched*; xfail entries whose tests all passed are *stale*.
Both are reported, and both fail the run under ``--agenttools-strict``, naming the entry to
delete.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.harness import markers

KINDS = ("xfail", "skip")
PROPERTY = "agenttools_expectation"


@dataclass
class Entry:
    kind: str
    id: str
    reason: str
    index: int
    matched: list[str] = field(default_factory=list)
    left_out: bool = False

    def label(self) -> str:
        return f"[[{self.kind}]] #{self.index + 1} id={self.id!r}"


def short_nodeid(nodeid: str) -> str:
    """The part of a node id after the suite's package directory, stable across install paths."""
    for marker in ("conformance/", "conformance::"):
        if marker in nodeid:
            return nodeid.split(marker, 1)[1]
    return nodeid


def matches(
    entry_id: str,
    nodeid: str,
    clause_id: str | None,
    tool: str | None = None,
    tags: frozenset[str] = frozenset(),
) -> bool:
    if clause_id is not None and entry_id == clause_id:
        return True
    if entry_id.startswith("tool:"):
        return tool is not None and entry_id[5:] == tool
    if entry_id.startswith("tag:"):
        return entry_id[4:] in tags
    short = short_nodeid(nodeid)
    for candidate in (nodeid, short):
        if candidate == entry_id:
            return True
        if candidate.startswith(entry_id) and candidate[len(entry_id)] in ":[":
            return True
    return False


def load(path: str) -> list[Entry]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise pytest.UsageError(f"--agenttools-expectations: no such file {path!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise pytest.UsageError(
            f"--agenttools-expectations={path!r}: invalid TOML: {exc}"
        ) from None
    unknown = sorted(set(data) - set(KINDS))
    if unknown:
        raise pytest.UsageError(
            f"{path}: unknown table(s) {unknown}; use [[xfail]] and [[skip]] entries"
        )
    entries = []
    for kind in KINDS:
        for index, raw in enumerate(data.get(kind, [])):
            ident, reason = raw.get("id"), raw.get("reason")
            if not isinstance(ident, str) or not ident:
                raise pytest.UsageError(f"{path}: [[{kind}]] #{index + 1} needs an id")
            if not isinstance(reason, str) or not reason.strip():
                raise pytest.UsageError(
                    f"{path}: [[{kind}]] #{index + 1} id={ident!r} needs a reason "
                    "(say which behaviour breaks the clause)"
                )
            entries.append(Entry(kind, ident, reason.strip(), index))
    return entries


def refuse_todo(path: str, entries: Iterable[Entry]) -> None:
    """Strict mode: a reason that still says TODO (as ``agenttools baseline`` writes it) is no
    reason; name every such entry."""
    todo = [e for e in entries if e.reason.upper().startswith("TODO")]
    if todo:
        listed = "; ".join(e.label() for e in todo)
        noun = "entry" if len(todo) == 1 else "entries"
        raise pytest.UsageError(
            f"{path}: --agenttools-strict refuses {len(todo)} {noun} whose reason still says "
            f"TODO: {listed}. Write which behaviour breaks each clause."
        )


class Expectations:
    """Applies entries at collection and judges them after the run (on the controller)."""

    def __init__(self, path: str, strict: bool) -> None:
        self.path = path
        self.strict = strict
        self.entries = load(path)
        self.outcomes: dict[str, list[str]] = {}
        if strict:
            refuse_todo(path, self.entries)

    @staticmethod
    def _facts(item: pytest.Item) -> tuple[str | None, str | None, frozenset[str]]:
        from pytest_agenttools.run.selection import clause_info

        info = clause_info(item)
        if info is None:
            return markers.clause_of(item), None, frozenset()
        return info.clause.id, info.tool, info.tags

    def left_out(self, items: Iterable[pytest.Item]) -> None:
        """Tests this run deselected (``--agenttools-tools``, ``-k`` ...): an entry that matches
        one is not unmatched, the run just did not select its tests."""
        for item in items:
            clause_id, tool, tags = self._facts(item)
            for entry in self.entries:
                if matches(entry.id, item.nodeid, clause_id, tool, tags):
                    entry.left_out = True

    def apply(self, items: Iterable[pytest.Item]) -> None:
        for item in items:
            clause_id, tool, tags = self._facts(item)
            for entry in self.entries:
                if not matches(entry.id, item.nodeid, clause_id, tool, tags):
                    continue
                entry.matched.append(item.nodeid)
                item.user_properties.append((PROPERTY, f"{entry.kind}:{entry.id}"))
                reason = f"expected ({self.path}): {entry.reason}"
                if entry.kind == "skip":
                    item.add_marker(pytest.mark.skip(reason=reason))
                else:
                    item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
                break

    def record(self, entry_key: str, outcome: str) -> None:
        self.outcomes.setdefault(entry_key, []).append(outcome)

    def seen(self) -> list[Entry]:
        """Entries that match a test of this run, selected or left out."""
        return [e for e in self.entries if e.matched or e.left_out]

    def unmatched(self, matched_keys: set[str] | None = None) -> list[Entry]:
        """Entries that match no test of the suite (``matched_keys``: what the xdist workers
        saw, as ``kind:id``)."""
        if matched_keys is None:
            return [e for e in self.entries if not e.matched and not e.left_out]
        return [e for e in self.entries if f"{e.kind}:{e.id}" not in matched_keys]

    def stale(self) -> list[Entry]:
        found = []
        for entry in self.entries:
            if entry.kind != "xfail":
                continue
            seen = self.outcomes.get(f"xfail:{entry.id}", [])
            if seen and all(o in ("xpassed", "passed") for o in seen):
                found.append(entry)
        return found

    def problems(self, matched_keys: set[str] | None = None) -> list[str]:
        lines = []
        for entry in self.stale():
            lines.append(
                f"stale expectation {entry.label()} in {self.path}: every test it matches now "
                "passes; delete the entry"
            )
        for entry in self.unmatched(matched_keys):
            lines.append(
                f"unmatched expectation {entry.label()} in {self.path}: it matches no test; "
                "fix the id or delete the entry"
            )
        return lines

    def summary(self, matched_keys: set[str] | None = None) -> dict[str, Any]:
        return {
            "file": self.path,
            "entries": len(self.entries),
            "stale": [e.id for e in self.stale()],
            "unmatched": [e.id for e in self.unmatched(matched_keys)],
        }
