"""Verdicts under load: every target run quiet and under stress, the clauses whose verdict flips.

    python scripts/stress_flips.py                 # the whole suite, quiet vs --stress 8, 3 runs
    python scripts/stress_flips.py --runs 1 --clauses ROBUST-LINE-02,BASH-OUT-03
    python scripts/stress_flips.py --targets reference,reference-stdio

Targets: the reference in process and over stdio, each alternative, the `agenttools init`
Python skeleton (its first run, with its expectations file), and four wrong implementations
written the obvious way (`benchmarks/naive_rwe.py` and the broken package's naive bash, grep and
glob): a race must fail a wrong implementation every run, not now and then. Each target runs
``--runs`` times quiet and as many times with ``--stress N``; a clause flips when its verdicts
across those runs are not all the same. A verdict that depends on load is a defect of the kit
(docs/spec.md: no verdict may depend on how busy the machine is); this prints each flip and the
count.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pytest_agenttools.implementations.alternatives import alternative_implementations

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]
REFERENCE = "pytest_agenttools.implementations.reference:create"
BROKEN = "pytest_agenttools.implementations.broken"


def targets(skeleton_dir: Path) -> dict[str, list[str]]:
    """Each target's name and the `agenttools run` options that reach it."""
    found = {
        "reference": ["--impl", REFERENCE],
        "reference-stdio": ["--cmd", f"{BIN / 'agenttools'} serve"],
    }
    for spec in alternative_implementations():
        found[spec.rpartition(".")[2].split(":")[0]] = ["--impl", spec]
    subprocess.run(
        [str(BIN / "agenttools"), "init", "--lang", "python", str(skeleton_dir / "skeleton")],
        check=True,
        capture_output=True,
    )
    where = skeleton_dir / "skeleton"
    found["init-skeleton"] = [
        "--impl",
        f"{where / 'adapter.py'}:create",
        "--expectations",
        str(where / "expectations.toml"),
    ]
    found["naive-read-write-edit"] = ["--impl", f"{REPO / 'benchmarks' / 'naive_rwe.py'}:create"]
    for tool in ("bash", "grep", "glob"):
        found[f"{tool}-naive"] = ["--impl", f"{BROKEN}.{tool}_naive:create"]
    return found


def verdicts(
    options: Sequence[str],
    stress: int,
    extra: Sequence[str],
    cores: set[int] | None = None,
) -> dict[str, str]:
    """One run's verdict per clause (its JSON report). ``cores``: the run, its busy processes
    and everything it starts keep to these cores (its CPU affinity; the stress counts usable
    cores, so it is as dense there), and leave the others to whatever else the machine runs."""

    def pin() -> None:
        if cores:
            os.sched_setaffinity(0, cores)

    with tempfile.TemporaryDirectory() as scratch:
        report = os.path.join(scratch, "report.json")
        argv = [str(BIN / "agenttools"), "run", *options, "--report-json", report, *extra]
        if stress:
            argv += ["--stress", str(stress)]
        subprocess.run(argv, capture_output=True, text=True, check=False, preexec_fn=pin)
        if not os.path.exists(report):
            return {"(run)": "no report"}
        with open(report, encoding="utf-8") as handle:
            return dict(json.load(handle).get("clauses") or {})


def flips(runs: Sequence[dict[str, str]]) -> dict[str, list[str]]:
    """The clauses whose verdict is not the same in every run, with the verdicts seen."""
    clauses = sorted({c for run in runs for c in run})
    seen = {c: [run.get(c, "not run") for run in runs] for c in clauses}
    return {c: v for c, v in seen.items() if len(set(v)) > 1}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each kind (default 3)")
    parser.add_argument("--stress", type=int, default=8, help="busy processes per core (8)")
    parser.add_argument("--targets", help="comma-separated target names (default: all)")
    parser.add_argument("--clauses", help="only these clauses (default: the whole suite)")
    ns = parser.parse_args(argv)
    extra = ["--clauses", ns.clauses] if ns.clauses else []
    scratch = Path(tempfile.mkdtemp(prefix="stress-flips-"))
    try:
        chosen = targets(scratch)
        if ns.targets:
            unknown = sorted(set(ns.targets.split(",")) - set(chosen))
            if unknown:
                parser.error(f"unknown targets {unknown}; choose from {sorted(chosen)}")
            chosen = {n: chosen[n] for n in ns.targets.split(",")}
        total = 0
        for name, options in chosen.items():
            quiet = [verdicts(options, 0, extra) for _ in range(ns.runs)]
            loaded = [verdicts(options, ns.stress, extra) for _ in range(ns.runs)]
            flipped = flips([*quiet, *loaded])
            total += len(flipped)
            print(f"{name}: {len(flipped)} flips over {ns.runs} quiet and {ns.runs} stressed runs")
            for clause, seen in flipped.items():
                print(f"  {clause}: quiet {seen[: ns.runs]}, stress {seen[ns.runs :]}", flush=True)
        print(f"flips in all: {total}")
        return 1 if total else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
