"""How slow this machine runs right now: the one factor every wall-clock bound of the suite is
scaled by, so that no verdict depends on how busy the machine is.

The factor is measured once, at session start (after the stress mode, if any, has started),
against a fixed CPU workload: the wall time it took divided by the CPU time it got. A quiet
machine gives about 1, whatever its speed; a machine whose cores are shared with eight other
busy processes each gives about 9. A bound of the suite is a hang detector or the room a spec
allows past a declared time (a kill grace, a timeout); ``scaled`` widens it by the factor and
never narrows it. A run of the suite measures it at its start, and under pytest-xdist the
controller hands it to its workers, so every worker judges by the same one; any other run
measures it the first time a bound is asked for.
"""

from __future__ import annotations

import os
import time

#: CPU seconds the calibration workload takes (about; it stops at this much CPU time)
WORKLOAD_CPU_S = 0.1
#: the factor is kept within these bounds (a broken clock must not make bounds absurd)
LOWEST, HIGHEST = 1.0, 40.0
#: the variable a parent process hands its factor to its child runs by
VARIABLE = "AGENTTOOLS_SLOWDOWN"

_factor: float | None = None


def measure(cpu_seconds: float = WORKLOAD_CPU_S) -> float:
    """Wall time over CPU time of a fixed busy loop (at least 1: waiting is never faster)."""
    wall_start, cpu_start = time.monotonic(), time.thread_time()
    total = 0
    while time.thread_time() - cpu_start < cpu_seconds:
        for number in range(20_000):
            total += number * number
    wall = time.monotonic() - wall_start
    cpu = max(time.thread_time() - cpu_start, 1e-6)
    return min(HIGHEST, max(LOWEST, wall / cpu))


def calibrate(runs: int = 3) -> float:
    """Measure the factor now (the highest of ``runs`` measurements: a bound must hold at the
    busiest moment seen) and keep it for this process."""
    factor = max(measure() for _ in range(max(1, runs)))
    set_slowdown(factor)
    return factor


def set_slowdown(factor: float) -> None:
    global _factor
    _factor = min(HIGHEST, max(LOWEST, float(factor)))


def slowdown() -> float:
    """The factor in force: the one measured or handed over, else ``$AGENTTOOLS_SLOWDOWN``,
    else measured now (the first bound asked for in a run that measured nothing at its start)."""
    if _factor is not None:
        return _factor
    handed = os.environ.get(VARIABLE)
    if handed:
        try:
            set_slowdown(float(handed))
            return slowdown()
        except ValueError:
            pass
    return calibrate()


def scaled(seconds: float) -> float:
    """``seconds`` of a quiet machine, as long as it takes on this one now."""
    return seconds * slowdown()
