"""Time to the first verdict, and to every core failure, of a new implementation's first runs.

For two implementations a newcomer has on day one:

- ``skeleton``: what ``agenttools init --lang python`` writes (it declares no tool, so only the
  clauses for every implementation, ``ROBUST-*``, run);
- ``naive``: ``naive_rwe.py`` beside this file, read, write and edit written the obvious way,
  declaring those three tools and nothing else (it fails many core clauses);

each run three ways: ``serial`` (the full suite in one process, ``--serial``: the default before
runs were spread over the cores), ``parallel`` (``agenttools run`` as it is now, ``-n auto``)
and ``quick`` (``--quick``, spread too); once on the machine as it is ("quiet": this script adds
no load) and once with 2 busy processes per core that this script starts and stops.

Three times per run, read from its output as it is printed (unbuffered):

- ``first``: the first test verdict printed (pytest's first progress letter);
- ``failures``: the line naming the last core clause to fail (``[agenttools] ID failed, ...``:
  from then on every core failure the run will find is known); 0 when none fails;
- ``end``: the whole run.

The machine is shared: the load average is printed with every run, and the ratios (serial over
parallel, serial over quick) are the figures to compare, since both sides of a ratio ran under
about the same load.

    python benchmarks/bench_first_verdict.py [--impls skeleton,naive] [--loads quiet,loaded]
                                             [--modes serial,parallel,quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from measure import agenttools_exe

from pytest_agenttools.spec.clauses import CORE, load

HERE = Path(__file__).resolve().parent
MODES = {"serial": ["--serial"], "parallel": [], "quick": ["--quick"]}
#: a line of pytest's progress letters (-q), perhaps still being written
LETTERS = re.compile(r"^[.FEsxX]+(\s+\[\s*\d+%\])?$")
FAILED = re.compile(r"^\[agenttools\] ([A-Z]+-[A-Z0-9]+-\d\d) failed, ")


@dataclass
class Timing:
    impl: str
    mode: str
    load: str
    first_s: float
    failures_s: float
    end_s: float
    core_failed: int
    exit_code: int
    loadavg: float


def watch(args: Sequence[str], cwd: str) -> tuple[float, float, float, int, int]:
    """Run ``args``; return the seconds to the first verdict, to the last core failure named,
    to the end, the core clauses named failed, and the exit code."""
    core = {c.id for c in load().active() if c.conformance_level == CORE}
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(args), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert proc.stdout is not None
    first = last_failure = 0.0
    failed: set[str] = set()
    line = ""
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    while True:
        selector.select(timeout=1.0)
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            if proc.poll() is not None:
                break
            continue
        now = time.perf_counter() - start
        for char in chunk.decode("utf-8", "replace"):
            if char == "\n":
                found = FAILED.match(line)
                if found and found.group(1) in core and found.group(1) not in failed:
                    failed.add(found.group(1))
                    last_failure = now
                line = ""
                continue
            line += char
            if not first and LETTERS.match(line):
                first = now
    code = proc.wait()
    return first, last_failure, time.perf_counter() - start, len(failed), code


@contextmanager
def busy(per_core: int) -> Iterator[None]:
    """``per_core`` processes per core spinning for the duration."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(per_core * (os.cpu_count() or 1))
    ]
    try:
        time.sleep(2)
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def skeleton(scratch: Path) -> str:
    directory = scratch / "skeleton"
    subprocess.run(
        [agenttools_exe(), "init", "--lang", "python", str(directory)],
        check=True,
        capture_output=True,
    )
    return f"{directory / 'adapter.py'}:create"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impls", default="skeleton,naive")
    parser.add_argument("--loads", default="quiet,loaded")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--json", metavar="FILE")
    ns = parser.parse_args()
    timings: list[Timing] = []
    with tempfile.TemporaryDirectory(prefix="bench-first-") as scratch:
        impls = {"skeleton": skeleton(Path(scratch)), "naive": f"{HERE / 'naive_rwe.py'}:create"}
        for load_name in ns.loads.split(","):
            context = busy(2) if load_name == "loaded" else _nothing()
            with context:
                for impl in ns.impls.split(","):
                    for mode in ns.modes.split(","):
                        loadavg = os.getloadavg()[0]
                        args = [agenttools_exe(), "run", "--impl", impls[impl], *MODES[mode]]
                        first, failures, end, count, code = watch(args, scratch)
                        timing = Timing(
                            impl, mode, load_name, first, failures, end, count, code, loadavg
                        )
                        timings.append(timing)
                        print(
                            f"{impl:9} {mode:8} {load_name:6} first {first:6.1f} s  "
                            f"core failures known {failures:6.1f} s ({count})  "
                            f"end {end:6.1f} s  exit {code}  load {loadavg:.1f}",
                            flush=True,
                        )
    print()
    for load_name in ns.loads.split(","):
        for impl in ns.impls.split(","):
            row = {t.mode: t for t in timings if t.impl == impl and t.load == load_name}
            serial = row.get("serial")
            if serial is None:
                continue
            for other in ("parallel", "quick"):
                then = row.get(other)
                if then is None:
                    continue
                print(
                    f"{impl:9} {load_name:6} serial/{other:8} first "
                    f"{_ratio(serial.first_s, then.first_s)}  core failures "
                    f"{_ratio(serial.failures_s, then.failures_s)}  end "
                    f"{_ratio(serial.end_s, then.end_s)}"
                )
    print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if ns.json:
        Path(ns.json).write_text(json.dumps([asdict(t) for t in timings], indent=2) + "\n")


def _ratio(before: float, after: float) -> str:
    return f"{before / after:5.1f}x" if before and after else "    -"


@contextmanager
def _nothing() -> Iterator[None]:
    yield


if __name__ == "__main__":
    main()
