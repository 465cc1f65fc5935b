"""The kit's per-call cost over stdio next to in process, for a small read, in one run.

Both adapters serve the same reference; a call is the kit's whole path (argument normalisation,
the wire, the tool, the observation parsed back). The stdio figure includes the JSON-RPC line
each way and the server's thread hand-off. Rounds alternate (a batch in process, then one over
stdio), and the ratio is the median of the per-round ratios, with the load average beside it;
the target is a ratio of 1.3 or less.

    python benchmarks/bench_adapter_overhead.py [--calls 500] [--rounds 11] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_agenttools.connect.inprocess import REFERENCE_FACTORY, InProcessAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.contract import ToolCall

TARGET = 1.3


def warm(adapter: Any, call: ToolCall) -> None:
    for _ in range(50):  # imports, caches, the server's first requests
        adapter.call(call)


def batch_seconds(adapter: Any, call: ToolCall, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        result = adapter.call(call)
        assert not result.is_error, result
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-adapter-") as tmp:
        (Path(tmp) / "small.txt").write_text("".join(f"line {i}\n" for i in range(20)))
        call = ToolCall("read", {"path": "small.txt"}, tmp)
        adapters: dict[str, Any] = {
            "in_process": InProcessAdapter(REFERENCE_FACTORY, call_timeout=30),
            "stdio": StdioAdapter("agenttools serve", call_timeout=30),
        }
        times: dict[str, list[float]] = {name: [] for name in adapters}
        ratios: list[float] = []
        try:
            for adapter in adapters.values():
                adapter.start()
                warm(adapter, call)
            for _ in range(ns.rounds):  # alternating: both see the same machine, round by round
                for name, adapter in adapters.items():
                    times[name].append(batch_seconds(adapter, call, ns.calls))
                ratios.append(times["stdio"][-1] / times["in_process"][-1])
        finally:
            for adapter in adapters.values():
                adapter.close()
    numbers: dict[str, float] = {
        f"{name}_us": statistics.median(values) / ns.calls * 1e6 for name, values in times.items()
    }
    numbers["ratio"] = statistics.median(ratios)  # the median of the per-round ratios
    numbers["load_average_1min"] = round(os.getloadavg()[0], 2)
    verdict = "within" if numbers["ratio"] <= TARGET else "OVER"
    print(
        f"small read per call: in process {numbers['in_process_us']:.0f} µs, over stdio "
        f"{numbers['stdio_us']:.0f} µs, ratio {numbers['ratio']:.2f} "
        f"({verdict} the {TARGET} target; load {numbers['load_average_1min']})"
    )
    if ns.json:
        Path(ns.json).write_text(json.dumps(numbers, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
