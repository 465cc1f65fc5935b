"""1 GiB of command output through the reference bash, next to `cat >/dev/null` on the same pipe.

Both runs start the same producer (`head -c N /dev/zero | tr '\\0' a`, no newlines); the baseline
drains its pipe with `cat >/dev/null`, the reference captures it (bounded file + bounded view).
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

from measure import child_output, median_seconds, publish

CHILD = """
import os, resource, sys
from pytest_agenttools.implementations.reference import create
tools = create()
tools.configure({"bash.soft_yield_s": 3600})  # a slow machine must not hand it over
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = tools.call("bash", {"command": sys.argv[1], "timeout": 300}, sys.argv[2])
assert not result["isError"], result["content"][0]["text"][-300:]
path = result["details"].get("fullOutputPath")
info = os.stat(path) if path else None
size = max(info.st_size, info.st_blocks * 512) if info else 0
tools.shutdown()
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, size)
"""


FILE_CAP = 64 << 20  # the reference's bash.output_file_max_bytes


def producer(size: int) -> str:
    return f"head -c {size} /dev/zero | tr '\\0' a"


def reference_run(command: str, cwd: str) -> tuple[int, int, int]:
    out = child_output(CHILD, command, cwd).split()
    return int(out[0]), int(out[1]), int(out[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    size = ns.size_mib * 1024 * 1024
    command = producer(size)
    with tempfile.TemporaryDirectory(prefix="bench-bash-") as cwd:
        baseline = median_seconds(
            lambda: subprocess.run(["bash", "-c", f"{command} | cat >/dev/null"], check=True),
            ns.rounds,
        )
        samples = []
        peaks = []
        on_disk = []
        for _ in range(ns.rounds):
            start = time.perf_counter()
            _, peak, captured = reference_run(command, cwd)
            samples.append(time.perf_counter() - start)
            peaks.append(peak)
            on_disk.append(captured)
            assert captured <= min(size, FILE_CAP + 1024), f"the full output file takes {captured}"
        reference = statistics.median(samples)
        idle = reference_run("true", cwd)[1]
    numbers = {
        "size_mib": ns.size_mib,
        "baseline_cat_s": round(baseline, 3),
        "reference_s": round(reference, 3),
        "ratio": round(reference / baseline, 2),
        "peak_rss_mib": round(max(peaks) / 1024, 1),
        "full_output_file_on_disk_mib": round(max(on_disk) / (1 << 20), 2),
        "idle_call_peak_rss_mib": round(idle / 1024, 1),
        "cpus": os.cpu_count(),
    }
    publish(numbers, ns.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
