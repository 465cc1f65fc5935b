"""The one place that builds the suite's pytest command line, for ``run`` and ``selfcheck``.

``agenttools run`` runs it in this process (``run_in_process``); ``selfcheck`` runs one child
process per implementation (``run_in_subprocess``). Both leave nothing in the caller's
directory: the hypothesis database goes to a scratch directory, and the suite's own ini file
pins the rootdir so node ids are short and no ini file of the caller applies.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

SUITE = "pytest_agenttools.conformance"


@dataclass(frozen=True)
class SuiteRun:
    """What to run against which implementation; ``args()`` is the pytest command line."""

    impl: str | None = None
    cmd: str | None = None
    mcp: str | None = None
    mcp_mapping: str | None = None
    manifest: str | None = None
    expectations: str | None = None
    strict: bool = False
    report: str | None = None
    tools: str | None = None
    features: str | None = None
    modules: Sequence[str] = ()
    quiet: bool = True
    extra: Sequence[str] = field(default_factory=tuple)
    #: False: pytest's output leaves out the conformance section (the caller prints it)
    pytest_summary: bool = True

    def args(self) -> list[str]:
        from .clauses import suite_dir

        root = str(suite_dir())
        targets = [f"{SUITE}.{m}" for m in self.modules] or [SUITE]
        args = [
            "--pyargs",
            *targets,
            "--rootdir",
            root,
            "-c",
            os.path.join(root, "pytest.ini"),
            "-p",
            "no:benchmark",
            # a partial run (-k, --tools) leaves goldens of other tests unused, not stale
            "--snapshot-warn-unused",
        ]
        if self.quiet:
            args += ["-q", "-rfE"]
        if not self.pytest_summary:
            from .report import SUMMARY_PLUGIN

            args += ["-p", f"no:{SUMMARY_PLUGIN}"]
        for flag, value in (
            ("impl", self.impl),
            ("cmd", self.cmd),
            ("mcp", self.mcp),
            ("mcp-mapping", self.mcp_mapping),
            ("manifest", self.manifest),
            ("expectations", self.expectations),
            ("report", self.report),
            ("tools", self.tools),
            ("features", self.features),
        ):
            if value:
                args += [f"--agenttools-{flag}", value]
        if self.strict:
            args.append("--agenttools-strict")
        return args + list(self.extra)


@contextlib.contextmanager
def scratch_hypothesis() -> Iterator[str]:
    """Point hypothesis's example database at a scratch directory for the run's duration."""
    scratch = tempfile.mkdtemp(prefix="agenttools-hypothesis-")
    previous = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = scratch
    try:
        yield scratch
    finally:
        if previous is None:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        else:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = previous
        shutil.rmtree(scratch, ignore_errors=True)


def read_report(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def run_in_process(run: SuiteRun) -> tuple[int, dict[str, Any]]:
    """Run the suite with ``pytest.main`` here; return the exit code and the report data.

    Without ``run.report`` the report goes to a temporary file that is removed afterwards.
    """
    import pytest

    with tempfile.TemporaryDirectory(prefix="agenttools-run-") as scratch:
        target = run.report or os.path.join(scratch, "report.json")
        with scratch_hypothesis():
            code = int(pytest.main(_with_report(run, target).args()))
        return code, read_report(target)


@dataclass
class ChildRun:
    """The outcome of a suite run in a child process."""

    exit_code: int
    report: dict[str, Any]
    output: str
    problem: str = ""


def run_in_subprocess(run: SuiteRun, timeout: float = 900) -> ChildRun:
    """Run the suite in a child Python (its own pytest session), from a scratch directory."""
    with tempfile.TemporaryDirectory(prefix="agenttools-child-") as scratch:
        target = run.report or os.path.join(scratch, "report.json")
        env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=os.path.join(scratch, "hypothesis"))
        command = [sys.executable, "-m", "pytest", *_with_report(run, target).args()]
        try:
            proc = subprocess.run(
                command, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return ChildRun(-1, {}, "", f"the run did not finish within {timeout:.0f} s")
        output = proc.stdout + proc.stderr
        report = read_report(target)
        problem = "" if report else f"no report; pytest said: {output[-1500:]}"
        return ChildRun(proc.returncode, report, output, problem)


def _with_report(run: SuiteRun, path: str) -> SuiteRun:
    from dataclasses import replace

    return replace(run, report=path)
