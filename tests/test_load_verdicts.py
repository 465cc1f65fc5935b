"""Verdicts do not depend on load: the clauses whose tests wait on the clock give the same
verdicts quiet and under ``--stress 8`` (eight busy processes per core), for the reference in
process and over stdio and the ``agenttools init`` skeleton: one target of each way of reaching
an implementation (the alternatives wrap the reference's timing and add no way of their own).

The whole suite against every target, three runs of each kind, is scripts/stress_flips.py; this
is its long-tier sample of the timing-sensitive clauses (a kill after a grace, a timeout's end,
a background task's timeout, a cancel answered in time, a closed stdin seen at once). The sample
is kept small, and each run keeps to one core (its CPU affinity, which the stress and the
run's workers count cores by: eight busy processes on that core), so that the other tests of the
tier keep the other cores while a stressed run lasts.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import REPO

SCRIPT = REPO / "scripts" / "stress_flips.py"
#: clauses whose tests wait on the clock (bounds the slowdown widens, handovers they accept)
TIMING = "BASH-KILL-03,BASH-TO-02,BASH-BG-05,ROBUST-CANCEL-01,BASH-PROC-03"
#: the targets sampled here: in process, a stdio server the kit starts, a user's adapter
SAMPLE = ("reference", "reference-stdio", "init-skeleton")
#: the core the sampled runs keep to
ONE_CORE = {max(os.sched_getaffinity(0))}


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("agenttools_stress_flips", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.mark.kit_long(45)
def test_timing_clauses_give_the_same_verdicts_quiet_and_under_stress(
    script: ModuleType, tmp_path: Path
) -> None:
    flipped = {}
    targets = script.targets(tmp_path)
    assert set(SAMPLE) <= set(targets), f"the script no longer has the targets {SAMPLE}"
    for name in SAMPLE:
        options = targets[name]
        runs = [
            script.verdicts(options, stress, ["--clauses", TIMING], ONE_CORE) for stress in (0, 8)
        ]
        assert runs[0] and "(run)" not in runs[0], f"{name}: the quiet run made no report"
        for clause, seen in script.flips(runs).items():
            flipped[f"{name} {clause}"] = seen
    assert not flipped, f"verdicts that depend on load (quiet, stress 8): {flipped}"


@pytest.mark.kit_long(40)
def test_long_output_clauses_accept_a_soft_yield(tmp_path: Path) -> None:
    """A command whose output takes longer than the soft-yield window goes to the background:
    the output clauses judge it through the task, so a slow machine cannot fail them."""
    from tests.support import suite_report

    report = suite_report(
        tmp_path, "BASH-OUT-03,BASH-OUT-07,BASH-OUT-08", impl="tests.conformance.early_yield:create"
    )
    verdicts = report.get("clauses") or {}
    assert verdicts == dict.fromkeys(("BASH-OUT-03", "BASH-OUT-07", "BASH-OUT-08"), "passed"), (
        report.get("output", "")[-3000:]
    )
