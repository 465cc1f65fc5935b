"""What changed between two reports of one implementation (or two versions of it): clause by
clause, the verdicts that moved, worst news first, then the levels whose counts moved.

A regression is a clause that passed before and does not now (failed, blocked, expected to fail,
or not run); the command exits 1 when there is one, so a history of reports can gate on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.report.data import VERDICTS, compute_levels, level_verdict
from pytest_agenttools.spec.clauses import Spec

WORDS = {
    "passed": "passed",
    "failed": "failed",
    "expected": "failed as expected",
    "blocked": "blocked",
    "not_run": "not run",
}


@dataclass(frozen=True)
class Change:
    clause: str
    before: str
    after: str

    @property
    def regression(self) -> bool:
        return self.before == "passed" and self.after != "passed"

    @property
    def fix(self) -> bool:
        return self.after == "passed" and self.before != "passed"

    def line(self) -> str:
        return f"{self.clause}: {WORDS[self.before]} -> {WORDS[self.after]}"


def _verdicts(spec: Spec, data: Mapping[str, Any]) -> dict[str, str]:
    raw = dict(data.get("clauses") or {})
    return {c.id: level_verdict(raw.get(c.id)) for c in spec.active()}


def _levels(spec: Spec, data: Mapping[str, Any]) -> dict[str, Any]:
    return dict(
        data.get("levels")
        or compute_levels(
            spec,
            dict(data.get("clauses") or {}),
            dict(data.get("not_run") or {}),
            dict(data.get("implementation") or {}),
        )
    )


def changes(spec: Spec, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Change]:
    old, new = _verdicts(spec, before), _verdicts(spec, after)
    found = [Change(cid, old[cid], new[cid]) for cid in old if old[cid] != new[cid]]
    return sorted(found, key=lambda c: (not c.regression, not c.fix, c.clause))


def _name(data: Mapping[str, Any]) -> str:
    impl = data.get("implementation") or {}
    return f"{impl.get('name', '?')} {impl.get('version', '')}".strip()


def diff_lines(
    spec: Spec, before: tuple[str, Mapping[str, Any]], after: tuple[str, Mapping[str, Any]]
) -> list[str]:
    (old_source, old), (new_source, new) = before, after
    found = changes(spec, old, new)
    lines = [f"{old_source} ({_name(old)}) -> {new_source} ({_name(new)})"]
    if not found:
        lines.append("no clause changed its verdict")
    for title, chosen in (
        ("regressions", [c for c in found if c.regression]),
        ("fixed", [c for c in found if c.fix]),
        ("other changes", [c for c in found if not c.regression and not c.fix]),
    ):
        if chosen:
            lines.append(f"{title} ({len(chosen)}):")
            lines.extend(f"  {c.line()}" for c in chosen)
    old_levels, new_levels = _levels(spec, old), _levels(spec, new)
    for name in dict.fromkeys([*old_levels, *new_levels]):
        for requirement in ("MUST", "SHOULD"):
            a = (old_levels.get(name) or {}).get(requirement) or {}
            b = (new_levels.get(name) or {}).get(requirement) or {}
            moved = [f"{v} {a.get(v, 0)}->{b.get(v, 0)}" for v in VERDICTS if a.get(v) != b.get(v)]
            if moved:
                lines.append(f"level {name} {requirement}: " + ", ".join(moved))
    return lines
