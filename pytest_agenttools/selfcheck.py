"""Run the suite against every shipped broken implementation and report what caught what.

Each module in ``pytest_agenttools.broken`` is the reference with one defect, plus ``CAUGHT_BY``
(the clauses that must fail) and optionally ``SUITE_MODULES`` (the suite modules worth running).
The kill matrix says, per broken implementation, which clauses failed; a broken implementation
that no clause catches means the suite has a hole.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

BROKEN_PACKAGE = "pytest_agenttools.broken"
SUITE = "pytest_agenttools.conformance"


@dataclass
class Kill:
    """One broken implementation's row of the kill matrix."""

    name: str
    defect: str
    expected: frozenset[str]
    caught: frozenset[str] = frozenset()
    exit_code: int = 0
    problem: str = ""
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def missed(self) -> frozenset[str]:
        return self.expected - self.caught

    @property
    def ok(self) -> bool:
        return bool(self.caught) and not self.missed and not self.problem

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "defect": self.defect,
            "expected": sorted(self.expected),
            "caught": sorted(self.caught),
            "missed": sorted(self.missed),
            "ok": self.ok,
            "problem": self.problem,
            "summary": self.counts,
        }


def broken_implementations() -> list[str]:
    package = importlib.import_module(BROKEN_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name[0] != "_")


def run_one(name: str, extra_args: Sequence[str] = (), timeout: float = 900) -> Kill:
    """Run the relevant part of the suite against ``name`` in a child process."""
    module = importlib.import_module(f"{BROKEN_PACKAGE}.{name}")
    kill = Kill(
        name,
        (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else "",
        frozenset(module.CAUGHT_BY),
    )
    from .clauses import suite_dir

    root = str(suite_dir())
    targets = [f"{SUITE}.{m}" for m in getattr(module, "SUITE_MODULES", ())] or [SUITE]
    with tempfile.TemporaryDirectory(prefix="agenttools-selfcheck-") as scratch:
        report_path = os.path.join(scratch, "report.json")
        env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=os.path.join(scratch, "hypothesis"))
        command = [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            *targets,
            "--rootdir",
            root,
            "-c",
            os.path.join(root, "pytest.ini"),
            "-p",
            "no:benchmark",
            "-q",
            f"--agenttools-impl={BROKEN_PACKAGE}.{name}:create",
            "--agenttools-report",
            report_path,
            *getattr(module, "PYTEST_ARGS", ()),
            *extra_args,
        ]
        try:
            proc = subprocess.run(
                command, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            kill.problem = f"the run did not finish within {timeout:.0f} s"
            return kill
        kill.exit_code = proc.returncode
        try:
            with open(report_path, encoding="utf-8") as handle:
                report = json.load(handle)
        except (OSError, ValueError):
            kill.problem = f"no report; pytest said: {(proc.stdout + proc.stderr)[-1500:]}"
            return kill
    kill.counts = dict(report.get("summary", {}))
    kill.caught = frozenset(
        c for c, verdict in report.get("clauses", {}).items() if verdict in ("failed", "error")
    )
    return kill


def run_selfcheck(
    names: Sequence[str] | None = None,
    jobs: int = 2,
    progress: Callable[[Kill], None] | None = None,
) -> list[Kill]:
    chosen = list(names) if names else broken_implementations()
    results: list[Kill] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for kill in pool.map(run_one, chosen):
            results.append(kill)
            if progress:
                progress(kill)
    return results


def render(kills: Sequence[Kill]) -> list[str]:
    lines = [f"{'broken implementation':28} {'verdict':8} caught by"]
    for kill in kills:
        verdict = "caught" if kill.ok else ("ESCAPED" if not kill.caught else "PARTIAL")
        if kill.problem:
            verdict = "ERROR"
        caught = ", ".join(sorted(kill.caught)) or "-"
        lines.append(f"{kill.name:28} {verdict:8} {caught}")
        if kill.missed:
            lines.append(
                f"{'':28} {'':8} expected but not failing: {', '.join(sorted(kill.missed))}"
            )
        if kill.problem:
            lines.append(f"{'':28} {'':8} {kill.problem}")
    escaped = sum(not k.ok for k in kills)
    lines.append(f"{len(kills) - escaped} of {len(kills)} broken implementations caught")
    return lines
