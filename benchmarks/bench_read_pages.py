"""Every page of a 10 MB text file: the reference read (in process) next to `cat`, in one run.

Each round reads the file page by page (``offset`` = the previous page's ``next_offset``) and
runs ``cat FILE >/dev/null`` once, alternating, so both see the same machine; the ratio is the
median of the per-round ratios. Target (issue 29): at most 10x ``cat``; before, every page
walked every line from line 1 in Python (968-1,452x on a loaded machine).

It also times a read of a one-line file, the cost of a call before any page work (arguments,
path checks, open, sniffing, the result), and says what share of the ratio that alone makes:
``fixed_cost_ratio`` is one such call per page next to one ``cat`` of the file: the floor that
reading this file page by page, one call a page, cannot go under however fast the page work.

    python benchmarks/bench_read_pages.py [--size-mib 10] [--rounds 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import publish

from pytest_agenttools.fixtures.builders import make_text_file
from pytest_agenttools.implementations.reference import create


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        target = Path(tmp) / "big.log"
        make_text_file(target, int(ns.size_mib * 1024 * 1024))
        tools = create()

        def every_page() -> int:
            offset, pages = 1, 0
            while True:
                result = tools.call("read", {"path": str(target), "offset": offset}, tmp)
                assert not result["isError"], result
                pages += 1
                details = result["details"]
                if not details.get("has_more"):
                    return pages
                offset = details["next_offset"]

        def cat() -> None:
            with open(os.devnull, "wb") as null:
                subprocess.run(["cat", str(target)], check=True, stdout=null)

        small = Path(tmp) / "one-line.txt"
        small.write_text("one line\n", encoding="utf-8")

        def one_call() -> None:
            assert not tools.call("read", {"path": str(small)}, tmp)["isError"]

        pages = every_page()  # warm the page cache for both
        cat()
        ratios, t_ref, t_cat, t_fixed = [], [], [], []
        for _ in range(ns.rounds):
            start = time.perf_counter()
            for _ in range(pages):
                one_call()
            t_fixed.append(time.perf_counter() - start)
            start = time.perf_counter()
            every_page()
            t_ref.append(time.perf_counter() - start)
            start = time.perf_counter()
            cat()
            t_cat.append(time.perf_counter() - start)
            ratios.append(t_ref[-1] / t_cat[-1])
        numbers = {
            "file_bytes": os.path.getsize(target),
            "pages": pages,
            "every_page_s": round(statistics.median(t_ref), 4),
            "cat_s": round(statistics.median(t_cat), 5),
            "ratio_every_page_to_cat": round(statistics.median(ratios), 1),
            "per_page_ms": round(1000 * statistics.median(t_ref) / pages, 3),
            "one_line_call_ms": round(1000 * statistics.median(t_fixed) / pages, 3),
            "fixed_cost_ratio": round(
                statistics.median(f / c for f, c in zip(t_fixed, t_cat, strict=True)), 1
            ),
            "load_average_1min": round(os.getloadavg()[0], 2),
            "rounds": ns.rounds,
        }
    publish(numbers, ns.json, width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
