"""Page one of a 1 GiB file: the reference read next to `head -n 2000`, measured in one run.

Reports median wall times over repeated runs, their ratio, and the peak resident memory of a
fresh process that does one read (and of one that only imports the reference, for a baseline).
Targets (issue 2): within 3x of head, under 100 MB peak.

    python benchmarks/bench_read_page_one.py [--size-mib 1024] [--rounds 15] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import child_output, median_seconds, publish

from pytest_agenttools.fixtures.builders import make_text_file
from pytest_agenttools.implementations.reference import create

CHILD = """
import resource, sys
from pytest_agenttools.implementations.reference import create
tools = create()
if sys.argv[2] == "read":
    result = tools.call("read", {"path": sys.argv[1]}, "/")
    assert not result["isError"], result
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_mib(path: Path, mode: str) -> float:
    out = child_output(CHILD, str(path), mode)
    return int(out.strip()) / 1024  # ru_maxrss is in KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-read-") as tmp:
        target = Path(tmp) / "big.log"
        make_text_file(target, ns.size_mib * 1024 * 1024)
        tools = create()

        def reference() -> None:
            result = tools.call("read", {"path": str(target)}, tmp)
            assert not result["isError"] and result["details"]["end_line"] >= 1

        def head() -> None:
            subprocess.run(
                ["head", "-n", "2000", str(target)], check=True, stdout=subprocess.DEVNULL
            )

        reference()  # warm the page cache for both
        head()
        t_ref = median_seconds(reference, ns.rounds)
        t_head = median_seconds(head, ns.rounds)
        rss_read = peak_rss_mib(target, "read")
        rss_idle = peak_rss_mib(target, "idle")
        numbers = {
            "file_bytes": os.path.getsize(target),
            "reference_read_s": round(t_ref, 5),
            "head_n_2000_s": round(t_head, 5),
            "ratio_reference_to_head": round(t_ref / t_head, 2),
            "peak_rss_read_mib": round(rss_read, 1),
            "peak_rss_import_only_mib": round(rss_idle, 1),
            "rounds": ns.rounds,
        }
    publish(numbers, ns.json, width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
