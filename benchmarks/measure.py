"""Timing and memory helpers shared by the benchmarks (run as scripts from this folder).

Every benchmark measures the reference and its baseline in the same run, so the ratio holds on
a noisy machine where an absolute time would not.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any


def samples(action: Callable[[], object], rounds: int) -> list[float]:
    """Wall seconds of ``rounds`` calls of ``action``, in order."""
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        out.append(time.perf_counter() - start)
    return out


def median_seconds(action: Callable[[], object], rounds: int) -> float:
    """The median wall time of ``action`` over ``rounds`` calls."""
    return statistics.median(samples(action, rounds))


def agenttools_exe() -> str:
    """The ``agenttools`` command of this interpreter's environment (the checkout measured)."""
    return shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"


def timed_command(
    args: Sequence[str | os.PathLike[str]],
    cwd: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of one command, and what it printed. CPU is user plus system time of
    the command and every process it waited for: on a shared machine it moves less than the wall
    time, so it is the figure to compare changes by."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, done


def child_output(code: str, *args: str) -> str:
    """Run ``code`` in a fresh interpreter (so its peak memory is its own); return its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def publish(numbers: Mapping[str, Any], json_path: str | None, *, width: int = 0) -> None:
    """Print ``numbers`` (one ``key value`` row each, keys padded to ``width``; as JSON when
    ``width`` is 0) and write them to ``json_path`` as JSON when given."""
    text = json.dumps(numbers, indent=2) + "\n"
    if width:
        for key, value in numbers.items():
            print(f"{key:{width}} {value}")
    else:
        print(text, end="")
    if json_path:
        Path(json_path).write_text(text, encoding="utf-8")
