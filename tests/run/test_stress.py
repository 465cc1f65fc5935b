"""The stress mode: busy processes for the whole run, started once (never by an xdist worker),
and none left when the run ends; the slowdown it causes is measured and handed to the workers."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools.harness import clock
from pytest_agenttools.run import stress
from pytest_agenttools.run.parallel import usable_cores

pytest_plugins = ["pytester"]

INNER = """
import json, os, psutil
from pytest_agenttools.harness import clock
from pytest_agenttools.run import stress

def test_busy(request):
    owner = os.getppid() if hasattr(request.config, "workerinput") else os.getpid()
    mine = [p for p in stress.marked_processes() if psutil.Process(p).ppid() == owner]
    with open({out!r}, "a") as handle:
        handle.write(json.dumps({{"pids": mine, "slowdown": clock.slowdown()}}) + "\\n")
"""


def _run(pytester: pytest.Pytester, tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    out = tmp_path / "seen.jsonl"
    pytester.makepyfile(test_inner=INNER.format(out=str(out)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    assert result.ret == 0, result.stdout.str()
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_busy_processes_run_for_the_whole_run_and_none_survive(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    (seen,) = _run(pytester, tmp_path, "--agenttools-stress=1")
    pids = seen["pids"]
    assert isinstance(pids, list) and len(pids) == usable_cores()
    assert float(seen["slowdown"]) >= 1
    assert not [p for p in pids if psutil.pid_exists(p) and _not_zombie(p)]


@pytest.mark.kit_long(30)
def test_under_xdist_the_controller_starts_them_once(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_other="def test_other(): pass\n")
    seen = _run(pytester, tmp_path, "--agenttools-stress=1", "-n", "2")
    (pids,) = {tuple(sorted(s["pids"])) for s in seen}
    assert len(pids) == usable_cores(), "each worker sees the controller's, none starts its own"
    assert not [p for p in pids if psutil.pid_exists(p) and _not_zombie(p)]


def _not_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_a_busy_process_ends_by_itself_when_its_run_is_gone() -> None:
    import subprocess
    import sys

    # a parent that starts one busy process and is killed: the busy process follows it
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pytest_agenttools.run.stress import Stress\n"
            "s = Stress(1); s.start(); print(s.pids[0], flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    busy = int(parent.stdout.readline().split()[0])
    parent.kill()
    parent.wait()
    for _ in range(600):  # it checks its parent between slices of work; a zombie has ended
        if not (psutil.pid_exists(busy) and _not_zombie(busy)):
            break
        time.sleep(0.1)
    else:
        os.kill(busy, signal.SIGKILL)
        raise AssertionError(f"busy process {busy} outlived its parent")


@pytest.mark.parametrize("bad", ["-1", "two", "1.5", "1000"])
def test_a_bad_count_is_a_usage_error(bad: str) -> None:
    with pytest.raises(pytest.UsageError, match="whole number of busy processes"):
        stress.per_core(bad)


def test_bounds_are_widened_by_the_slowdown_never_narrowed() -> None:
    before = clock.slowdown()
    try:
        clock.set_slowdown(0.2)
        assert clock.scaled(10) == 10
        clock.set_slowdown(3)
        assert clock.scaled(10) == 30
    finally:
        clock.set_slowdown(before)
    assert 1 <= clock.measure(0.01) <= clock.HIGHEST
