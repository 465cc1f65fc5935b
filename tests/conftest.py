"""Helpers for the kit's own tests: run the shipped suite in a child process and read its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
REPO = TESTS.parent
RunSuite = Callable[..., tuple[subprocess.CompletedProcess[str], dict[str, Any]]]


@pytest.fixture
def run_suite(tmp_path: Path) -> RunSuite:
    """Run ``pytest --pyargs pytest_agenttools.conformance`` with extra args; return (proc, report).

    ``modules`` narrows the run to some suite modules (``["test_write"]``). The child imports
    the installed kit, with ``tests/`` on PYTHONPATH so the broken
    implementations in ``tests/broken`` can be loaded by ``--agenttools-impl``.
    """

    def run(
        *args: str, timeout: float = 600, cwd: Path | None = None, modules: Sequence[str] = ()
    ) -> tuple[Any, dict[str, Any]]:
        targets = [f"pytest_agenttools.conformance.{m}" for m in modules]
        report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.json"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
        env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(tmp_path / "hypothesis")
        command: Sequence[str] = [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            *(targets or ["pytest_agenttools.conformance"]),
            "-p",
            "no:cacheprovider",
            "-p",
            "no:benchmark",
            "-q",
            "--agenttools-report",
            str(report),
            *args,
        ]
        proc = subprocess.run(
            command, cwd=cwd or tmp_path, env=env, capture_output=True, text=True, timeout=timeout
        )
        data = json.loads(report.read_text()) if report.exists() else {}
        return proc, data

    return run


def failed_clauses(report: dict[str, Any]) -> set[str]:
    return {c for c, outcome in report.get("clauses", {}).items() if outcome in ("failed", "error")}
