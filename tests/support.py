"""Helpers the kit's tests share (imported as ``tests.support``): where the checkout is, the CLI
as a user runs it, and the waits a loaded machine needs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.conformance.bash_strategies import recorded_pids

#: the checkout's root, and the scripted servers the adapter tests start
REPO = Path(__file__).resolve().parents[1]
SERVERS = REPO / "tests" / "servers"

# The console script, found beside this interpreter, as a user starts the reference over stdio.
REFERENCE_STDIO = "agenttools serve"


def run_agenttools(
    *args: str,
    cwd: Path,
    timeout: float = 1200,
    env: dict[str, str] | None = None,
    spread: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``agenttools`` command in ``cwd`` and capture what it prints.

    A ``run`` is serial unless ``spread`` (or its own ``-n``): the kit's tests start many runs
    at once, and workers for each would only add start-up time (``agenttools run`` spreads a
    run over the cores by default; tests/cli/test_main.py checks that default on its own)."""
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    argv = list(args)
    if argv[:1] == ["run"] and not spread and not _chooses_workers(argv):
        argv.insert(1, "--serial")
    return subprocess.run(
        [exe, *argv], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def _chooses_workers(argv: list[str]) -> bool:
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    return "--serial" in argv or any(a == "-n" or a.startswith("-n") for a in extra)


def strict_report(run: subprocess.CompletedProcess[str], report: Path) -> dict[str, Any]:
    """The JSON report of a strict run that must have gone exactly as expected.

    A failed run names the tests behind its failure (nodeid, outcome and the end of their
    message), not only the end of the summary table: a peer's run that fails one time in
    several under load is otherwise gone with its temp dir before anyone sees why.
    """
    data: dict[str, Any] = json.loads(report.read_text()) if report.is_file() else {}
    odd = [
        (t["nodeid"], t["outcome"], t.get("expectation"), t.get("message", "")[-800:])
        for t in data.get("tests", [])
        if t.get("outcome") in ("failed", "error", "xpassed")
    ]
    named = "\n\n".join(
        f"{nodeid} {outcome} ({expected}):\n{message}" for nodeid, outcome, expected, message in odd
    )
    if run.returncode != 0:
        pytest.fail(f"{named}\n\n{run.stdout[-3000:]}\n{run.stderr[-1000:]}", pytrace=False)
    summary = data["summary"]
    if summary["failed"] or summary["error"] or summary["xpassed"]:
        pytest.fail(f"{summary}\n\n{named}", pytrace=False)
    assert data["expectations"]["stale"] == data["expectations"]["unmatched"] == []
    keep = os.environ.get(PEER_REPORTS)
    if keep:  # the peers matrix is made from these (scripts/peers_matrix.py)
        name = str(data["implementation"].get("name") or report.stem)
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(report, Path(keep) / f"{name}.json")
    return data


#: where a peer's strict run leaves a copy of its report, when set (CI sets it for the matrix)
PEER_REPORTS = "AGENTTOOLS_PEER_REPORTS"


#: how long a kit test waits for what the reference does at once: generous, so that a loaded
#: machine never turns a wait into a verdict
WAIT_S = 30.0


def numbers_in(path: Path, count: int, wait: float = WAIT_S) -> list[int]:
    """The numbers a command wrote to ``path`` (pids, mostly), once there are ``count``."""
    for _ in range(int(wait / 0.05)):
        found = recorded_pids(path.parent, path.name)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"the command never wrote {count} numbers to {path}")


def suite_report(
    scratch: Path,
    clauses: str,
    *,
    impl: str | None = None,
    cmd: str | None = None,
    extra: tuple[str, ...] | None = None,
    timeout: float = 900,
) -> dict[str, Any]:
    """The JSON report of the suite's tests of ``clauses`` against ``impl`` or ``cmd``, run in
    one child pytest from the checkout's root (so ``tests.*`` factories import), with the
    command line the runner builds (``extra``: pytest arguments, by default hypothesis's
    unshrunk profile); ``output`` holds the end of what it printed."""
    from pytest_agenttools.cli.runner import SuiteRun

    scratch.mkdir(parents=True, exist_ok=True)
    report = scratch / "report.json"
    more = ("--agenttools-hypothesis-profile=verdict",) if extra is None else extra
    run = SuiteRun(impl=impl, cmd=cmd, clauses=clauses, report=str(report), extra=more)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *run.args()],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert report.is_file(), done.stdout[-3000:] + done.stderr[-2000:]
    data: dict[str, Any] = json.loads(report.read_text())
    data["output"] = done.stdout[-3000:]
    return data
