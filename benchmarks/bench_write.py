"""write: a large atomic write next to `dd conv=fsync`, with peak memory.

Both land the bytes durably; the write also encodes the text and goes through a temp file and a
rename. No target: the numbers show what durability and atomicity cost. The pathological diff
inputs (20,000 blank lines) are measured by bench_edit.py for write and edit alike.

    python benchmarks/bench_write.py [--mib 100] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import publish

CHILD = """
import json, resource, sys, time
from pytest_agenttools.implementations.reference import create
tools = create()
path, source = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8", newline="") as handle:
    content = handle.read()
start = time.perf_counter()
result = tools.call("write", {"path": path, "content": content}, "/")
elapsed = time.perf_counter() - start
assert not result["isError"], result
print(json.dumps({"seconds": elapsed,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def run_write(path: Path, source: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(source)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    ns = parser.parse_args()
    numbers: dict[str, float | str | None] = {}
    with tempfile.TemporaryDirectory(prefix="bench-write-") as tmp:
        source = Path(tmp) / "source.txt"
        with open(source, "w", encoding="utf-8") as handle:
            line = "a line of ordinary text in a large generated file\n"
            handle.write(line * (ns.mib * 1024 * 1024 // len(line)))
        ref_times, dd_times, peaks = [], [], []
        for _ in range(ns.rounds):
            target = Path(tmp) / "ref.txt"
            target.write_bytes(b"old\n")
            measured = run_write(target, source)
            ref_times.append(measured["seconds"])
            peaks.append(measured["peak_rss_kib"] / 1024)
            start = time.perf_counter()
            subprocess.run(
                ["dd", f"if={source}", f"of={Path(tmp) / 'dd.txt'}", "bs=1M", "conv=fsync"],
                check=True,
                capture_output=True,
            )
            dd_times.append(time.perf_counter() - start)
            assert target.read_bytes() == source.read_bytes(), "the write differs from its source"
        numbers.update(
            file_mib=round(source.stat().st_size / 1024 / 1024, 1),
            write_s=round(statistics.median(ref_times), 4),
            dd_fsync_s=round(statistics.median(dd_times), 4),
            ratio_write_to_dd=round(statistics.median(ref_times) / statistics.median(dd_times), 2),
            write_peak_rss_mib=round(max(peaks), 1),
            rounds=ns.rounds,
        )
    publish(numbers, ns.json, width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
