"""The kit's per-call cost over stdio next to in process, for a small read, in one run.

Both adapters serve the same reference; a call is the kit's whole path (argument normalisation,
the wire, the tool, the observation parsed back). The stdio figure includes the JSON-RPC line
each way and the server's thread hand-off; the target is a ratio of 1.3 or less.

    python benchmarks/bench_adapter_overhead.py [--calls 2000] [--rounds 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from measure import samples

from pytest_agenttools.connect.inprocess import REFERENCE_FACTORY, InProcessAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.contract import ToolCall

TARGET = 1.3


def per_call_us(adapter: Any, call: ToolCall, calls: int, rounds: int) -> float:
    """Median over ``rounds`` of the mean microseconds per call of ``calls`` sequential calls."""
    for _ in range(50):  # warm: imports, caches, the server's first requests
        adapter.call(call)

    def batch() -> None:
        for _ in range(calls):
            result = adapter.call(call)
            assert not result.is_error, result

    return statistics.median(samples(batch, rounds)) / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-adapter-") as tmp:
        (Path(tmp) / "small.txt").write_text("".join(f"line {i}\n" for i in range(20)))
        call = ToolCall("read", {"path": "small.txt"}, tmp)
        numbers: dict[str, float] = {}
        for name, adapter in (
            ("in_process_us", InProcessAdapter(REFERENCE_FACTORY, call_timeout=30)),
            ("stdio_us", StdioAdapter("agenttools serve", call_timeout=30)),
        ):
            adapter.start()
            try:
                numbers[name] = per_call_us(adapter, call, ns.calls, ns.rounds)
            finally:
                adapter.close()
    numbers["ratio"] = numbers["stdio_us"] / numbers["in_process_us"]
    verdict = "within" if numbers["ratio"] <= TARGET else "OVER"
    print(
        f"small read per call: in process {numbers['in_process_us']:.0f} µs, over stdio "
        f"{numbers['stdio_us']:.0f} µs, ratio {numbers['ratio']:.2f} "
        f"({verdict} the {TARGET} target)"
    )
    if ns.json:
        Path(ns.json).write_text(json.dumps(numbers, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
