"""The stress mode (``--agenttools-stress N``): N busy processes per usable core for the whole
run, so a run shows whether any verdict depends on how busy the machine is.

Started once per run, by the process that owns the run (pytest-xdist's controller, or the one
pytest process without xdist), never by a worker; killed when the run ends. Each busy process
also ends by itself as soon as its parent is gone (it watches its parent's pid), so none
outlives a run that was killed. The calibration of ``harness.clock`` is taken after they have
started, so the suite's bounds are scaled for the load it runs under.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

import pytest

from pytest_agenttools.run.parallel import usable_cores

#: the busy loop: spins until its parent (the run, whose pid it is given: one that died before
#: the loop started is gone too) is gone
BUSY_LOOP = (
    "import os, sys\n"
    "parent = int(sys.argv[1])\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(200_000):\n"
    "        pass\n"
)
#: the command line mark that tells a busy process of the kit's from any other
MARK = "agenttools-stress"
#: the most busy processes per core (more says nothing a run could use)
MOST_PER_CORE = 64


class Stress:
    """The busy processes of one run."""

    def __init__(self, per_core: int) -> None:
        self.per_core = per_core
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        count = self.per_core * usable_cores()
        for _ in range(count):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP, str(os.getpid()), MARK],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    def stop(self) -> list[int]:
        """Kill every busy process and reap it; the pids still alive after (none, or the run
        says so)."""
        for process in self.processes:
            with contextlib.suppress(OSError):
                process.kill()
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
        left = [pid for pid in self.pids if _alive(pid)]
        self.processes = []
        return left


def _alive(pid: int) -> bool:
    import psutil  # only when the stress mode is used: the plugin's import stays light

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def per_core(raw: str | None) -> int:
    """The option's value as a count (0: no stress); a bad value is a usage error."""
    if raw in (None, ""):
        return 0
    try:
        count = int(float(str(raw)))
        if count != float(str(raw)) or not 0 <= count <= MOST_PER_CORE:
            raise ValueError
    except ValueError:
        raise pytest.UsageError(
            f"--agenttools-stress={raw!r} must be a whole number of busy processes per core, "
            f"0 to {MOST_PER_CORE}"
        ) from None
    return count


class StressPlugin:
    """Registered by the run's own process; starts the busy processes, measures the slowdown
    (``harness.clock``) and hands it to xdist's workers, and stops them at the end."""

    def __init__(self, config: pytest.Config, count: int) -> None:
        self.config = config
        self.stress = Stress(count) if count else None
        self.factor = 1.0
        self.measured = False
        self.left: list[int] = []

    def start(self, measure: bool) -> None:
        """Start the busy processes; measure the slowdown now when ``measure`` (a run of the
        suite) or under stress, else when a bound is first asked for."""
        from pytest_agenttools.harness import clock

        if self.stress is not None:
            self.stress.start()
            time.sleep(0.2)  # let them be scheduled before the machine is measured
        if measure or self.stress is not None:
            self.factor = clock.calibrate()
            self.measured = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: object) -> None:
        workerinput = getattr(node, "workerinput", None)
        if isinstance(workerinput, dict) and self.measured:
            workerinput["agenttools_slowdown"] = self.factor

    def pytest_report_header(self) -> list[str]:
        if not self.measured:
            return []
        stress = (
            f"stress: {self.stress.per_core} busy processes per core "
            f"({len(self.stress.pids)} in all); "
            if self.stress is not None
            else ""
        )
        return [f"agenttools: {stress}slowdown {self.factor:.1f} (bounds scaled by it)"]

    def stop(self) -> None:
        if self.stress is not None:
            self.left = self.stress.stop()
            if self.left:
                sys.stderr.write(f"agenttools: stress processes still alive: {self.left}\n")


def register(config: pytest.Config, raw: str | None) -> StressPlugin | None:
    """The run's stress plugin; on an xdist worker none (the factor comes from the controller)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        from pytest_agenttools.harness import clock

        factor = workerinput.get("agenttools_slowdown")
        if factor is not None:
            clock.set_slowdown(float(factor))
        return None
    from pytest_agenttools.run.parallel import runs_the_suite

    plugin = StressPlugin(config, per_core(raw))
    config.pluginmanager.register(plugin, "agenttools-stress")
    plugin.start(measure=runs_the_suite(config))
    return plugin


def stop(config: pytest.Config) -> None:
    plugin = config.pluginmanager.get_plugin("agenttools-stress")
    if isinstance(plugin, StressPlugin):
        plugin.stop()


def marked_processes() -> list[int]:
    """Busy processes of the kit's stress mode alive now (on this machine, of any run)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info.get("cmdline") or []
        if cmdline and cmdline[-1] == MARK and proc.info.get("status") != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
    return found
