"""How many xdist workers ``-n auto`` starts for the conformance suite.

Most of the suite's time is waiting, not computing: a bash test waits out a timeout or a kill
grace, an implementation's child processes sleep. With one worker per core (xdist's own
``auto``) the cores sit idle while every worker waits. For a run of the suite, and only for
one, ``auto`` adds a worker per core, at most four more, so the waiting overlaps (measured in
benchmarks/bench_suite_run.py). Any other pytest run in the environment keeps xdist's
choice, and so does ``PYTEST_XDIST_AUTO_NUM_WORKERS`` or an explicit ``-n N``.
"""

from __future__ import annotations

import os

import pytest

SUITE = "pytest_agenttools.conformance"
#: at most this many workers beyond xdist's own count
EXTRA_AT_MOST = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset``
    narrows), not every core of the machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def runs_the_suite(config: pytest.Config) -> bool:
    """Every target of this run is (part of) the conformance suite, by name or by path."""
    from pytest_agenttools.spec.clauses import suite_dir

    root = os.path.realpath(suite_dir())
    targets = [arg.split("::")[0] for arg in config.args]
    if not targets:
        return False
    for target in targets:
        if target == SUITE or target.startswith(SUITE + "."):
            continue
        path = os.path.realpath(os.path.join(config.invocation_params.dir, target))
        if path != root and not path.startswith(root + os.sep):
            return False
    return True


def auto_workers(config: pytest.Config) -> int | None:
    """The suite's ``-n auto``: xdist's count plus as many again, at most ``EXTRA_AT_MOST``
    more; None (xdist decides) for any other run or when the variable decides."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or not runs_the_suite(config):
        return None
    from xdist.plugin import pytest_xdist_auto_num_workers as xdist_count

    cores = max(1, int(xdist_count(config)))
    return cores + min(cores, EXTRA_AT_MOST)
