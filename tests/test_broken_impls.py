"""The suite checks itself: each broken implementation fails the clause that names its defect."""

from __future__ import annotations

import importlib
import pkgutil

import broken
import pytest
from conftest import RunSuite, failed_clauses

BROKEN = sorted(m.name for m in pkgutil.iter_modules(broken.__path__) if m.name[0] != "_")


@pytest.mark.parametrize("name", BROKEN)
def test_broken_implementation_is_caught(run_suite: RunSuite, name: str) -> None:
    module = importlib.import_module(f"broken.{name}")
    expected = module.CAUGHT_BY
    # SUITE_MODULES (optional) narrows the run to the suite modules that matter for the defect.
    modules = getattr(module, "SUITE_MODULES", ())
    proc, report = run_suite(f"--agenttools-impl=broken.{name}:create", modules=modules)
    assert report, f"no report written; pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
    caught = failed_clauses(report)
    assert expected <= caught, (
        f"{name} should fail {sorted(expected)}, but the failing clauses are {sorted(caught)}"
    )
    assert proc.returncode == 1


def test_reference_passes_everything(run_suite: RunSuite) -> None:
    proc, report = run_suite()
    assert proc.returncode == 0, proc.stdout[-3000:]
    summary = report["summary"]
    assert summary["failed"] == 0 and summary["error"] == 0
    assert summary["passed"] >= 60
    assert not failed_clauses(report)
