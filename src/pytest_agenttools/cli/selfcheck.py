"""The kit checks itself, on both sides: every broken implementation caught, every alternative
correct implementation passing everything.

Each module in ``pytest_agenttools.implementations.broken`` is the reference with one defect,
ending in one ``BROKEN = Broken(...)`` (``broken/_table.py``): the clauses that must fail it
(``caught_by``), and optionally the suite modules worth running, extra pytest arguments (a short
call deadline for a defect that hangs), whether it is a broken server, and the seconds its run
waits out a clause's fixed window (to start it early). A broken implementation that no clause
catches means the suite has a hole. Only the tests of its ``caught_by`` clauses run
(``--agenttools-clauses``): the rest of the suite judges what the defect does not change; and
each clause only until its first failure (``--agenttools-first-failure``), which is its verdict.
``all_clauses`` runs every test of its modules, to see what else catches it. The runs share one
warm child process (``runner.run_batch``).

Each alternative in ``pytest_agenttools.implementations.alternatives`` is the reference presented
as another real tool presents it (tab line numbers, absolute paths, notices first, 0-based
offsets, its own argument names ...). An alternative that fails any clause means the suite
judges the reference's layout instead of behaviour.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_agenttools.cli.runner import (
    VERDICT_ONLY,
    ChildRun,
    SuiteRun,
    run_batch,
    run_in_subprocess,
)
from pytest_agenttools.implementations.broken import _table as broken_table
from pytest_agenttools.run.parallel import usable_cores

BROKEN_PACKAGE = "pytest_agenttools.implementations.broken"
ALTERNATIVES_PACKAGE = "pytest_agenttools.implementations.alternatives"
FAILING = ("failed", "error")


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
    wall_s: float = 0.0
    cpu_s: float | None = None

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
            "seconds": _seconds(self.wall_s, self.cpu_s),
        }


@dataclass
class Pass:
    """One alternative correct implementation's row: it must fail nothing."""

    name: str
    modelled_on: str
    adapter: str
    failed: dict[str, str] = field(default_factory=dict)
    not_run: int = 0
    passed: int = 0
    exit_code: int = 0
    problem: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    cpu_s: float | None = None

    @property
    def ok(self) -> bool:
        return not self.failed and not self.problem and self.passed > 0 and self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "modelled_on": self.modelled_on,
            "adapter": self.adapter,
            "ok": self.ok,
            "passed_clauses": self.passed,
            "not_run_clauses": self.not_run,
            "failed": self.failed,
            "problem": self.problem,
            "summary": self.counts,
            "seconds": _seconds(self.wall_s, self.cpu_s),
        }


def _seconds(wall: float, cpu: float | None) -> dict[str, float | None]:
    """A run's wall and CPU seconds as the JSON kill matrix gives them."""
    return {"wall": round(wall, 2), "cpu": None if cpu is None else round(cpu, 2)}


def default_jobs() -> int:
    """Runs at once: four per core (at most 32). A broken implementation's run mostly waits on
    timeouts and kill graces; on 2 cores the 104 broken runs take 143 s two at a time, 86 s four
    at a time and 81 s eight at a time."""
    return max(2, min(32, 4 * usable_cores()))


def broken_implementations() -> list[str]:
    return broken_table.names()


def caught_index() -> dict[str, list[str]]:
    """Map clause id to the broken implementations that its tests must catch (``caught_by``)."""
    index: dict[str, list[str]] = {}
    for name, entry in broken_table.table().items():
        for ident in entry.caught_by:
            index.setdefault(ident, []).append(name)
    return index


def alternative_implementations() -> list[str]:
    from pytest_agenttools.implementations.alternatives import STYLES

    return list(STYLES)


def broken_run(name: str, *, all_clauses: bool = False, extra_args: Sequence[str] = ()) -> SuiteRun:
    """The run that must catch broken implementation ``name``: the tests of its ``caught_by``
    clauses in its ``suite_modules`` (every clause of those modules with ``all_clauses``, to
    see what else catches it)."""
    entry, _ = broken_table.load(name)
    # a broken server (broken/_served.py) is reached over stdio only
    served = entry.served
    return SuiteRun(
        impl=None if served else f"{BROKEN_PACKAGE}.{name}:create",
        cmd=f"{shlex.quote(sys.executable)} -m {BROKEN_PACKAGE}.{name}" if served else None,
        modules=tuple(entry.suite_modules),
        clauses=None if all_clauses else ",".join(sorted(entry.caught_by)),
        # the kill matrix reads the JSON report: no conformance section in the output
        pytest_summary=False,
        # a broken implementation only needs the verdict: each clause until its first failure
        extra=(
            *VERDICT_ONLY,
            "--agenttools-first-failure",
            *entry.pytest_args,
            *extra_args,
        ),
    )


def kill_row(name: str, child: ChildRun) -> Kill:
    """What the run of broken implementation ``name`` caught."""
    entry, module = broken_table.load(name)
    doc = (module.__doc__ or "").strip()
    kill = Kill(name, doc.splitlines()[0] if doc else "", frozenset(entry.caught_by))
    kill.exit_code, kill.problem = child.exit_code, child.problem
    kill.wall_s, kill.cpu_s = child.wall_s, child.cpu_s
    kill.counts = dict(child.report.get("summary", {}))
    kill.caught = frozenset(
        c for c, verdict in child.report.get("clauses", {}).items() if verdict in FAILING
    )
    return kill


def run_one(
    name: str, extra_args: Sequence[str] = (), timeout: float = 900, all_clauses: bool = False
) -> Kill:
    """Run the relevant part of the suite against broken implementation ``name``."""
    run = broken_run(name, all_clauses=all_clauses, extra_args=extra_args)
    return kill_row(name, run_in_subprocess(run, timeout))


def alternative_run(
    name: str, *, stdio: bool = False, tools: str | None = None, extra_args: Sequence[str] = ()
) -> SuiteRun:
    """The whole suite (or ``tools``' part) against alternative ``name``, in process or served
    over stdio by ``agenttools serve --impl``."""
    spec = f"{ALTERNATIVES_PACKAGE}.{name}:create"
    return SuiteRun(
        impl=None if stdio else spec,
        cmd=f"agenttools serve --impl {spec}" if stdio else None,
        tools=tools,
        pytest_summary=False,
        extra=tuple(extra_args),
    )


def pass_row(name: str, child: ChildRun, *, stdio: bool = False) -> Pass:
    """What the run of alternative ``name`` failed (it must fail nothing)."""
    from pytest_agenttools.implementations.alternatives import STYLES

    row = Pass(name, STYLES[name].modelled_on, "stdio" if stdio else "in-process")
    row.exit_code, row.problem = child.exit_code, child.problem
    row.wall_s, row.cpu_s = child.wall_s, child.cpu_s
    report = child.report
    row.counts = dict(report.get("summary", {}))
    verdicts = report.get("clauses", {})
    row.passed = sum(v in ("passed", "xpassed") for v in verdicts.values())
    row.not_run = sum(v == "skipped" for v in verdicts.values())
    messages = {t.get("clause"): t.get("message", "") for t in report.get("tests", [])}
    # a blocked clause was not judged: an alternative that must pass everything has not passed it
    row.failed = {
        c: str(messages.get(c, ""))[-300:]
        for c, v in verdicts.items()
        if v in (*FAILING, "blocked")
    }
    if not row.problem and row.exit_code not in (0, 1):
        row.problem = f"pytest exited with {row.exit_code}: {child.output[-800:]}"
    return row


def run_alternative(
    name: str,
    *,
    stdio: bool = False,
    tools: str | None = None,
    extra_args: Sequence[str] = (),
    timeout: float = 900,
) -> Pass:
    """Run the suite against alternative ``name`` (in process, or served over stdio)."""
    run = alternative_run(name, stdio=stdio, tools=tools, extra_args=extra_args)
    return pass_row(name, run_in_subprocess(run, timeout), stdio=stdio)


def run_selfcheck(
    names: Sequence[str] | None = None,
    jobs: int | None = None,
    progress: Callable[[Kill], None] | None = None,
    *,
    all_clauses: bool = False,
) -> list[Kill]:
    """Every broken implementation (or ``names``) in one batch: ``jobs`` runs at once."""
    chosen = list(names) if names else broken_implementations()
    runs = [broken_run(name, all_clauses=all_clauses) for name in chosen]

    def done(index: int, child: ChildRun) -> None:
        if progress:
            progress(kill_row(chosen[index], child))

    children = run_batch(runs, jobs=jobs or default_jobs(), progress=done if progress else None)
    return [kill_row(name, child) for name, child in zip(chosen, children, strict=True)]


def run_both(
    broken: Sequence[str],
    alternatives: Sequence[str],
    *,
    stdio: bool = False,
    jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Kill], list[Pass]]:
    """The broken implementations and the alternatives (in process, and over stdio with
    ``stdio``) in one batch (one warm child), biggest runs first: the whole suites, then the
    runs that declare a long wait, then by modules and clauses, so that no long run starts last
    and ends the batch alone. ``progress`` gets a line as each run's verdict lands
    (``3 of 131: read_naive caught (12.4 s)``).
    """
    runs: list[tuple[str, str, SuiteRun]] = [("broken", n, broken_run(n)) for n in broken]
    runs += [("alternative", n, alternative_run(n)) for n in alternatives]
    if stdio:
        runs += [("stdio", n, alternative_run(n, stdio=True)) for n in alternatives]
    waits = {n: broken_waits(n) for n in broken}
    order = sorted(
        range(len(runs)), key=lambda i: run_size(runs[i][2], waits.get(runs[i][1], 0)), reverse=True
    )
    landed = 0

    def done(index: int, child: ChildRun) -> None:
        nonlocal landed
        landed += 1
        kind, name, _ = runs[order[index]]
        if kind == "broken":
            verdict = kill_verdict(kill_row(name, child))
        else:
            verdict = pass_verdict(pass_row(name, child, stdio=kind == "stdio"))
            name = f"{name} (stdio)" if kind == "stdio" else name
        if progress:
            progress(progress_line(landed, len(runs), name, verdict, child.wall_s))

    children = run_batch(
        [runs[i][2] for i in order],
        jobs=jobs or default_jobs(),
        progress=done if progress else None,
    )
    outcome = dict(zip(order, children, strict=True))
    kills = [kill_row(n, outcome[i]) for i, (kind, n, _) in enumerate(runs) if kind == "broken"]
    rows = [
        pass_row(n, outcome[i], stdio=kind == "stdio")
        for i, (kind, n, _) in enumerate(runs)
        if kind != "broken"
    ]
    return kills, rows


def run_size(run: SuiteRun, waits: int = 0) -> tuple[int, int, int, int]:
    """How big a run is, for starting the biggest first: the whole suite (no modules named)
    above any part of it, then by the seconds it declares it waits, then by the modules and
    clauses it runs."""
    if not run.modules:
        return (1, 0, 0, 0)
    clauses = len(run.clauses.split(",")) if run.clauses else 1 << 20
    return (0, waits, len(run.modules), clauses)


def broken_waits(name: str) -> int:
    """The seconds broken implementation ``name`` declares its run waits (``waits_s``: a clause's
    own fixed window, such as 30 s for an answer that never comes), for starting it early."""
    return broken_table.load(name)[0].waits_s


def kill_verdict(kill: Kill) -> str:
    """A broken implementation's verdict: caught, PARTIAL (some clauses missed it), ESCAPED,
    or ERROR (its run did not end with a report)."""
    if kill.problem:
        return "ERROR"
    return "caught" if kill.ok else ("ESCAPED" if not kill.caught else "PARTIAL")


def pass_verdict(row: Pass) -> str:
    """An alternative's verdict: passes, FAILS (some clause), or ERROR."""
    return "passes" if row.ok else ("ERROR" if row.problem else "FAILS")


def progress_line(done: int, total: int, name: str, verdict: str, wall_s: float) -> str:
    """One verdict as it lands: ``3 of 131: read_naive caught (12.4 s)``."""
    return f"{done} of {total}: {name} {verdict} ({wall_s:.1f} s)"


def render(kills: Sequence[Kill]) -> list[str]:
    lines = [f"{'broken implementation':28} {'verdict':8} caught by"]
    for kill in kills:
        verdict = kill_verdict(kill)
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


def render_alternatives(rows: Sequence[Pass]) -> list[str]:
    lines = [f"{'alternative implementation':28} {'adapter':10} {'verdict':8} modelled on"]
    for row in rows:
        verdict = pass_verdict(row)
        lines.append(
            f"{row.name:28} {row.adapter:10} {verdict:8} {row.modelled_on} "
            f"({row.passed} clauses passed, {row.not_run} not run)"
        )
        for clause, message in sorted(row.failed.items()):
            lines.append(f"{'':28} {'':10} {'':8} {clause}: {message.splitlines()[-1:]}")
        if row.problem:
            lines.append(f"{'':28} {'':10} {'':8} {row.problem}")
    bad = sum(not r.ok for r in rows)
    lines.append(f"{len(rows) - bad} of {len(rows)} alternative implementations pass everything")
    return lines


def render_longest(kills: Sequence[Kill], rows: Sequence[Pass], count: int = 3) -> str:
    """The ``count`` runs that took longest, wall and CPU seconds: a batch lasts at least as long
    as its longest run, so these are where a selfcheck's time goes (a fixed window such as
    ROBUST-LINE-02's 30 s shows as much wall and little CPU)."""
    timed = [(k.wall_s, k.cpu_s, k.name) for k in kills]
    timed += [(r.wall_s, r.cpu_s, f"{r.name} ({r.adapter})") for r in rows]
    longest = sorted(timed, key=lambda t: -t[0])[:count]
    parts = [
        f"{name} {wall:.1f} s" + ("" if cpu is None else f" ({cpu:.1f} s CPU)")
        for wall, cpu, name in longest
    ]
    return "longest runs: " + "; ".join(parts)
