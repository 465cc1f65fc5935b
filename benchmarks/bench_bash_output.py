"""1 GiB of command output through the reference bash, next to `cat >/dev/null` on the same pipe.

Both runs start the same producer (`head -c N /dev/zero | tr '\\0' a`, no newlines); the baseline
drains its pipe with `cat >/dev/null`, the reference captures it (bounded file + bounded view).
Rounds alternate (the baseline, then the reference), and the ratio is the median of the per-round
ratios. The reference's time is its call's, measured inside a fresh process that makes that one
call: a server is long-lived, so the interpreter's start is not a cost of capturing output.
Reports the median wall times, their ratio, the peak resident memory of a fresh process that
makes one reference call (ru_maxrss of that process; the command's own processes are not
counted), and the size the full-output file takes on disk once the command has ended.
Targets (issue 5): within 2x of the baseline, under 100 MB peak; (issue 12) the file at most
``bash.output_file_max_bytes`` (64 MiB) plus its note, whatever was printed.

    python benchmarks/bench_bash_output.py [--size-mib 1024] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from measure import child_output, publish

CHILD = """
import os, resource, sys, time
from pytest_agenttools.implementations.reference import create
tools = create()
tools.configure({"bash.soft_yield_s": 3600})  # a slow machine must not hand it over
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
result = tools.call("bash", {"command": sys.argv[1], "timeout": 300}, sys.argv[2])
took = time.perf_counter() - start
assert not result["isError"], result["content"][0]["text"][-300:]
path = result["details"].get("fullOutputPath")
info = os.stat(path) if path else None
size = max(info.st_size, info.st_blocks * 512) if info else 0
tools.shutdown()
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, size, took)
"""


FILE_CAP = 64 << 20  # the reference's bash.output_file_max_bytes


def producer(size: int) -> str:
    return f"head -c {size} /dev/zero | tr '\\0' a"


def reference_run(command: str, cwd: str) -> tuple[int, int, int, float]:
    """Peak RSS before and after the call (KiB), the file's size on disk, the call's seconds."""
    out = child_output(CHILD, command, cwd).split()
    return int(out[0]), int(out[1]), int(out[2]), float(out[3])


def baseline_run(command: str) -> float:
    """Seconds of the same producer drained by ``cat >/dev/null`` (bash's start included, as
    the reference's call includes its bash)."""
    start = time.perf_counter()
    subprocess.run(["bash", "-c", f"{command} | cat >/dev/null"], check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    size = ns.size_mib * 1024 * 1024
    command = producer(size)
    with tempfile.TemporaryDirectory(prefix="bench-bash-") as cwd:
        baselines, samples, ratios, peaks, on_disk = [], [], [], [], []
        for _ in range(ns.rounds):  # alternating: both see the same machine, round by round
            baselines.append(baseline_run(command))
            _, peak, captured, took = reference_run(command, cwd)
            samples.append(took)
            ratios.append(took / baselines[-1])
            peaks.append(peak)
            on_disk.append(captured)
            assert captured <= min(size, FILE_CAP + 1024), f"the full output file takes {captured}"
        baseline, reference = statistics.median(baselines), statistics.median(samples)
        idle = reference_run("true", cwd)[1]
    numbers = {
        "size_mib": ns.size_mib,
        "baseline_cat_s": round(baseline, 3),
        "reference_s": round(reference, 3),
        "ratio": round(statistics.median(ratios), 2),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "peak_rss_mib": round(max(peaks) / 1024, 1),
        "full_output_file_on_disk_mib": round(max(on_disk) / (1 << 20), 2),
        "idle_call_peak_rss_mib": round(idle / 1024, 1),
        "cpus": os.cpu_count(),
    }
    publish(numbers, ns.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
