"""The conformance suite's wall time against the reference, and what the kit's run choices buy.

Measured in one run, each configuration the same number of times, alternating:

- ``auto``: ``agenttools run -- -n auto`` as the README runs it (the kit's ``-n auto`` gives the
  suite a worker per core plus as many again, at most four more; workspaces on the RAM file
  system where there is one);
- ``cores``: ``-n <xdist's own count>``, the workers xdist would start for any other run;
- ``disk``: ``-n auto`` with the workspaces on the system temp dir (``AGENTTOOLS_TMPDIR``).

Also the raw cost of making and removing a workspace's files in both places. The target is the
suite in 15 s or less with ``-n auto`` on two cores.

    python benchmarks/bench_suite_run.py [--rounds 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from types import SimpleNamespace

from measure import agenttools_exe, samples, timed_command

from pytest_agenttools.harness.scratch import RAM_DIR, ram_dir_usable

TARGET_S = 15.0


def suite_seconds(workers: str, tmpdir: str | None) -> tuple[float, float]:
    """Wall and CPU seconds (``measure.timed_command``) of one ``agenttools run`` of the whole
    suite; fails on any failing test."""
    env = dict(os.environ)
    env.pop("TMPDIR", None)
    if tmpdir:
        env["AGENTTOOLS_TMPDIR"] = tmpdir
    else:
        env.pop("AGENTTOOLS_TMPDIR", None)
    with tempfile.TemporaryDirectory() as cwd:
        took, cpu, done = timed_command([agenttools_exe(), "run", "--", "-n", workers], cwd, env)
    if done.returncode != 0:
        raise SystemExit(f"the suite failed ({done.returncode}):\n{done.stdout[-2000:]}")
    return took, cpu


def file_churn_us(base: str, files: int = 400) -> float:
    """Microseconds per file to make a workspace of ``files`` files in nested dirs, remove it."""

    def churn() -> None:
        root = tempfile.mkdtemp(dir=base)
        for i in range(files):
            path = Path(root, f"d{i % 20}", f"e{i % 7}", f"f{i}.txt")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"line\n" * 20)
        shutil.rmtree(root)

    return statistics.median(samples(churn, 5)) / files * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="write the figures here too")
    options = parser.parse_args()
    from xdist.plugin import pytest_xdist_auto_num_workers

    asked = SimpleNamespace(option=SimpleNamespace(numprocesses="auto"))
    cores = str(pytest_xdist_auto_num_workers(asked))
    disk = tempfile.gettempdir()
    runs: dict[str, list[tuple[float, float]]] = {"auto": [], "cores": [], "disk": []}
    for _ in range(options.rounds):
        runs["auto"].append(suite_seconds("auto", None))
        runs["cores"].append(suite_seconds(cores, None))
        runs["disk"].append(suite_seconds("auto", disk))
    figures: dict[str, object] = {}
    for name, measured in runs.items():
        figures[name] = round(statistics.median(wall for wall, _ in measured), 2)
        figures[f"{name}_cpu"] = round(statistics.median(cpu for _, cpu in measured), 2)
    figures["cores_count"] = int(cores)
    figures["churn_us_disk"] = round(file_churn_us(disk), 1)
    if ram_dir_usable(RAM_DIR):
        figures["churn_us_ram"] = round(file_churn_us(RAM_DIR), 1)
    auto = float(figures["auto"])  # type: ignore[arg-type]
    print(
        f"suite, -n auto:              {auto:6.1f} s, {figures['auto_cpu']} s of CPU "
        f"(target <= {TARGET_S:.0f} s)"
    )
    print(
        f"suite, -n {cores} (xdist's own):   {figures['cores']:6} s, "
        f"{figures['cores_cpu']} s of CPU"
    )
    print(f"suite, -n auto, disk temp:   {figures['disk']:6} s, {figures['disk_cpu']} s of CPU")
    print(f"workspace files, disk temp:  {figures['churn_us_disk']} us per file")
    if "churn_us_ram" in figures:
        print(f"workspace files, {RAM_DIR}:   {figures['churn_us_ram']} us per file")
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
