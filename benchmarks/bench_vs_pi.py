"""The reference and pi 0.73.1 side by side, each next to a Unix baseline, in one run.

Why (issue 29, item 6): the reference's figures mean more next to a real peer's, taken on the
same machine in the same minutes. pi is reached as the kit reaches any peer, through its stdio
adapter (`node peers/pi/server.mjs`, docs/adapter-protocol.md); the reference both in process
and over stdio (`agenttools serve`): the stdio reference is the fair comparison with pi, which
also pays the JSON-RPC line each way.

Each case starts fresh servers (so peaks do not carry over) and runs ``--rounds`` rounds; a round
runs the baseline once, then each implementation once (their order rotating), so every figure
sees the same machine. Per implementation it prints the median seconds, the median of the
per-round ratios to the baseline, and the peak RSS of the serving process: VmHWM from
/proc/<pid>/status of the server and its descendants that run the same program (pi's server
relaunches itself once with a bigger libuv pool; that child serves), sampled until the server
stops. The in-process reference shares this process, so it has no peak of its own ("n/a").

    1 page one of a --page-one-mib text file (read, no offset) vs `head -n 2000 FILE >/dev/null`
    2 every page of a --pages-mib text file (offset = the observation's next_offset) vs `cat`
    3 an exact edit of a --edit-mib file (one unique line in the middle) vs `sed -i`
    4 --bash-mib of bash output (`head -c N /dev/zero | tr '\\0' a`) vs the same `>/dev/null`;
      the reference keeps at most 64 MiB of it on disk, pi the whole output (in a TMPDIR of
      this run's: pi never removes it)
    5 a --write-mib write vs `dd bs=1M conv=fsync` (the reference writes durably; pi's
      fs.writeFile does not fsync); the stdio reference is served with a request-line limit
      that fits the write (``serve --max-line-bytes``; its default of 64 MiB refuses a 100 MiB
      write with an error that names the option); a refusal is reported, not fatal
    6 --small-reads reads of a 20-line file; the baseline is the reference in process
    7 grep for a literal (planted in every 2000th file of bench_search's tree: under pi's
      100-match cap, where pi stops rg, so every tool reads the whole tree) vs raw `rg`; glob
      (the reference only: pi has no glob tool) vs `rg --files -g`

An implementation whose operation overruns ``--timeout`` seconds in a round is reported as timed
out (the adapter then cancels the call and waits up to 5 s more) and left out of that case's
later rounds; one without the case's tool (its manifest) is skipped with a note. Without
peers/pi/node_modules (`cd peers/pi && npm ci --ignore-scripts`) or node, the reference is
measured alone. With ``--json`` the numbers are also printed and written as JSON.

    python benchmarks/bench_vs_pi.py [--rounds 3] [--timeout 60] [--page-one-mib 400]
        [--pages-mib 10] [--edit-mib 50] [--bash-mib 1024] [--write-mib 100]
        [--small-reads 1000] [--tree-files 20000] [--tree-file-kib 2] [--cases 1,2,3,4,5,6,7]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psutil
from bench_bash_output import producer
from bench_search import make_tree
from measure import agenttools_exe, publish

from pytest_agenttools.connect.base import AdapterError, ProtocolError
from pytest_agenttools.connect.inprocess import REFERENCE_FACTORY, InProcessAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.fixtures.builders import DEFAULT_LINE, make_line_file, make_text_file
from pytest_agenttools.harness.contract import ToolCall, ToolResult
from pytest_agenttools.harness.observations import (
    EditObservation,
    GlobObservation,
    GrepObservation,
    ReadObservation,
)

ROOT = Path(__file__).resolve().parents[1]
PI_DIR = ROOT / "peers" / "pi"
MARKER = "UNIQUE_MARKER_LINE"
LITERAL = "zq_planted_literal_7"  # in a few files only: every tool scans the whole tree
MiB = 1024 * 1024
Seen = TypeVar("Seen")


class TimedOut(Exception):
    pass


class Refused(Exception):
    """The implementation answered with an error (a tool error result or a JSON-RPC error)."""


def short(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def vm_hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


@dataclass
class Impl:
    """One implementation in one case: its adapter, its figures, why it stopped (if it did)."""

    name: str
    adapter: Any
    tools: frozenset[str] = frozenset()
    #: the manifest's name and version
    version: str = ""
    times: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    status: str | None = None
    note: str = ""
    peak_kib: int = 0

    @property
    def pid(self) -> int | None:
        return getattr(self.adapter, "pid", None)

    def call(self, tool: str, arguments: dict[str, Any], cwd: str, deadline: float) -> ToolResult:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimedOut
        try:
            result: ToolResult = self.adapter.call(ToolCall(tool, arguments, cwd), timeout=left)
        except ProtocolError as exc:  # its text names the adapter, then the error
            raise Refused(str(exc).removeprefix(f"{self.adapter.describe()}: ")) from None
        except AdapterError:
            if time.monotonic() >= deadline:
                raise TimedOut from None
            raise
        if result.is_error:
            raise Refused(f"error result: {result.text}")
        return result

    def observe(
        self, kind: type[Seen], tool: str, arguments: dict[str, Any], cwd: Path, deadline: float
    ) -> Seen:
        """The call's details.observation, parsed (an AssertionError if it is not ``kind``)."""
        seen = self.call(tool, arguments, str(cwd), deadline).observation
        assert isinstance(seen, kind), f"{tool} answered {type(seen).__name__}"
        return seen


class PeakWatch:
    """Samples the VmHWM of each stdio server (and its same-program descendants) until stopped;
    the high-water mark only grows, so a sample taken before the server stops holds its peak."""

    def __init__(self, impls: list[Impl]) -> None:
        self.impls = [impl for impl in impls if impl.pid is not None]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        for impl in self.impls:
            pid = impl.pid
            if pid is None:
                continue
            with contextlib.suppress(psutil.Error, OSError):
                root = psutil.Process(pid)
                exe = root.exe()
                procs = [root] + [c for c in root.children(recursive=True) if c.exe() == exe]
                for proc in procs:
                    with contextlib.suppress(OSError):
                        impl.peak_kib = max(impl.peak_kib, vm_hwm_kib(proc.pid))

    def _run(self) -> None:
        while not self.stop.wait(0.1):
            self.sample()

    def close(self) -> None:
        self.sample()
        self.stop.set()
        self.thread.join()


@dataclass
class Case:
    key: str
    #: the working directory of every call
    cwd: Path
    title: str
    tool: str
    baseline_label: str
    baseline: Callable[[], object]
    #: the timed operation of one implementation; returns a short note (pages, matches ...)
    op: Callable[[Impl, float], str]
    #: untimed, before each implementation's operation in every round
    setup: Callable[[Impl], object] | None = None
    #: untimed, after a successful operation: a problem to note, or None
    check: Callable[[Impl], str | None] | None = None
    #: a cheap call (or calls) that loads the tool's code before the rounds
    warm: Callable[[Impl, float], object] | None = None
    impls: tuple[str, ...] = ("ref in-proc", "ref stdio", "pi stdio")
    configure: dict[str, Any] = field(default_factory=dict)
    cleanup: Callable[[], object] | None = None
    #: printed under the title
    detail: str = ""


class Bench:
    def __init__(self, ns: argparse.Namespace, tmp: Path, with_pi: bool) -> None:
        self.ns = ns
        self.tmp = tmp
        self.with_pi = with_pi
        self.server_tmp = tmp / "server-tmp"  # pi's bash leaves its full output here
        self.server_tmp.mkdir()
        self.versions: dict[str, str] = {}

    def adapter(self, name: str) -> Any:
        timeout = self.ns.timeout + 1
        env = {**os.environ, "TMPDIR": str(self.server_tmp)}
        if name == "ref in-proc":
            return InProcessAdapter(REFERENCE_FACTORY, call_timeout=timeout)
        if name == "ref stdio":
            # a request line as long as the biggest this run sends (the write's content, JSON
            # escaped): the server's default limit is 64 MiB, which refuses a 100 MiB write
            limit = max(64, 2 * self.ns.write_mib + 1) * MiB
            command = [agenttools_exe(), "serve", "--max-line-bytes", str(limit)]
            return StdioAdapter(shlex.join(command), call_timeout=timeout, env=env)
        return StdioAdapter(
            shlex.join(["node", str(PI_DIR / "server.mjs")]), call_timeout=timeout, env=env
        )

    def run(self, case: Case) -> list[Impl]:
        names = [n for n in case.impls if self.with_pi or not n.startswith("pi")]
        impls = []
        for name in names:
            impl = Impl(name, self.adapter(name))
            try:
                manifest = impl.adapter.start()
                impl.tools = frozenset(manifest.tools)
                self.versions[impl.name] = f"{manifest.name} {manifest.version}"
            except AdapterError as exc:
                impl.status = f"did not start: {short(str(exc))}"
            impls.append(impl)
        watch = PeakWatch(impls)
        base_times: list[float] = []
        try:
            for impl in impls:
                if impl.status is None and case.tool not in impl.tools:
                    impl.status = f"skipped: no {case.tool} tool (its manifest)"
                elif impl.status is None:
                    if case.configure and impl.name.startswith("ref"):
                        impl.adapter.configure(case.configure)
                    if case.warm:
                        self.attempt(impl, case.warm, self.far())
            case.baseline()  # the page cache warmed for everyone
            for index in range(self.ns.rounds):
                start = time.perf_counter()
                own = case.baseline()  # a float: its own time (sed without the copy before it)
                base_times.append(own if isinstance(own, float) else time.perf_counter() - start)
                order = impls[index % len(impls) :] + impls[: index % len(impls)]
                for impl in order:
                    if impl.status is not None:
                        continue
                    if case.setup:
                        case.setup(impl)
                    deadline = time.monotonic() + self.ns.timeout
                    start = time.perf_counter()
                    note = self.attempt(impl, case.op, deadline)
                    took = time.perf_counter() - start
                    if impl.status is not None:
                        continue
                    impl.times.append(took)
                    impl.ratios.append(took / base_times[-1])
                    impl.note = note or ""
                    problem = case.check(impl) if case.check else None
                    if problem and problem not in impl.note:
                        impl.note = f"{impl.note}; {problem}" if impl.note else problem
        finally:
            watch.close()
            for impl in impls:
                with contextlib.suppress(Exception):
                    impl.adapter.close()
            if case.cleanup:
                case.cleanup()
        self.report(case, base_times, impls)
        return [Impl("baseline", None, times=base_times), *impls]

    def attempt(self, impl: Impl, action: Callable[..., Any], *args: Any) -> Any:
        """``action(impl, *args)``; a timeout, a refusal or a broken server ends ``impl``'s case."""
        try:
            return action(impl, *args)
        except TimedOut:
            impl.status = f"timed out after {self.ns.timeout:g} s"
        except Refused as exc:
            impl.status = f"refused ({short(str(exc))})"
        except (AdapterError, AssertionError) as exc:
            impl.status = f"failed: {short(str(exc))}"
        return None

    def far(self) -> float:
        return time.monotonic() + self.ns.timeout

    def report(self, case: Case, base_times: list[float], impls: list[Impl]) -> None:
        base = statistics.median(base_times) if base_times else float("nan")
        print(f"\n[{case.key}] {case.title}" + (f": {case.detail}" if case.detail else ""))
        print(f"    {'baseline':12} {base:10.4f} s  {'':>9}  {'':>14}  {case.baseline_label}")
        for impl in impls:
            print(f"    {impl.name:12} {row_text(impl)}", flush=True)


def row_text(impl: Impl) -> str:
    if impl.name == "ref in-proc":
        peak = "peak n/a"  # it is this process
    elif impl.peak_kib:
        peak = f"peak {impl.peak_kib / 1024:5.0f} MiB"
    else:
        peak = "peak -"
    tail = "; ".join(t for t in (impl.note, impl.status) if t)
    if not impl.times:
        return f"{'-':>10}    {'':>9}  {peak:>14}  {tail}"
    median = statistics.median(impl.times)
    ratio = statistics.median(impl.ratios)
    return f"{median:10.4f} s  {ratio:8.1f}x  {peak:>14}  {tail}"


def warm(tool: str, arguments: dict[str, Any], cwd: Path) -> Callable[[Impl, float], object]:
    """A cheap call that loads the tool's code before the rounds."""
    return lambda impl, deadline: impl.call(tool, arguments, str(cwd), deadline)


def warm_read(tmp: Path) -> Callable[[Impl, float], object]:
    """A read of a small file: pi reads a whole file whatever it shows, a big one is no warm-up."""
    make_line_file(tmp / "warm.txt", 20)
    return warm("read", {"path": "warm.txt"}, tmp)


def quiet(*argv: str) -> Callable[[], None]:
    """Run ``argv`` with its output to /dev/null."""

    def run() -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    return run


def slug(name: str) -> str:
    return name.replace(" ", "_").replace("-", "_")


# --- the cases -------------------------------------------------------------------------------


def case_page_one(tmp: Path, ns: argparse.Namespace) -> Case:
    target = make_text_file(tmp / "page-one.log", ns.page_one_mib * MiB)

    def op(impl: Impl, deadline: float) -> str:
        seen = impl.observe(ReadObservation, "read", {"path": str(target)}, tmp, deadline)
        return f"lines {seen.start_line}-{seen.start_line + len(seen.lines) - 1}"

    return Case(
        "1", tmp, f"page one of a {ns.page_one_mib} MiB file", "read",
        "head -n 2000 FILE >/dev/null", quiet("head", "-n", "2000", str(target)), op,
        warm=warm_read(tmp), detail="read with no offset",
    )  # fmt: skip


def case_pages(tmp: Path, ns: argparse.Namespace) -> Case:
    target = make_text_file(tmp / "pages.log", int(ns.pages_mib * MiB))

    def op(impl: Impl, deadline: float) -> str:
        offset: int | None = None
        pages = 0
        while True:
            arguments: dict[str, Any] = {"path": str(target)}
            if offset is not None:
                arguments["offset"] = offset
            seen = impl.observe(ReadObservation, "read", arguments, tmp, deadline)
            pages += 1
            if seen.next_offset is None:
                return f"{pages} pages, last line {seen.start_line + len(seen.lines) - 1}"
            assert offset is None or seen.next_offset > offset, f"offset {offset} again"
            offset = seen.next_offset

    return Case(
        "2", tmp, f"every page of a {ns.pages_mib:g} MiB file", "read",
        "cat FILE >/dev/null", quiet("cat", str(target)), op,
        warm=warm_read(tmp),
        detail="each read's offset is the previous observation's next_offset",
    )  # fmt: skip


def case_edit(tmp: Path, ns: argparse.Namespace) -> Case:
    half = tmp / "edit-half.txt"
    line = len(DEFAULT_LINE.encode())
    make_text_file(half, ns.edit_mib * MiB // 2 // line * line)  # whole lines
    source = tmp / "edit-source.txt"
    with open(source, "wb") as out:
        for part in (half, None, half):
            if part is None:
                out.write(f"{MARKER}\n".encode())
            else:
                with open(part, "rb") as handle:
                    shutil.copyfileobj(handle, out)
    half.unlink()
    expected = tmp / "edit-sed.txt"

    def sed() -> float:
        shutil.copyfile(source, expected)
        start = time.perf_counter()
        subprocess.run(["sed", "-i", f"s/{MARKER}/CHANGED_LINE/", str(expected)], check=True)
        return time.perf_counter() - start  # sed's own time, not the copy before it

    def target(impl: Impl) -> Path:
        return tmp / f"edit-{slug(impl.name)}.txt"

    def op(impl: Impl, deadline: float) -> str:
        arguments = {
            "file_path": str(target(impl)),
            "old_string": MARKER,
            "new_string": "CHANGED_LINE",
        }
        seen = impl.observe(EditObservation, "edit", arguments, tmp, deadline)
        return f"{seen.replacements} replacement(s)"

    def check(impl: Impl) -> str | None:
        # compared in chunks, so this process (whose children inherit its peak) stays small
        same = filecmp.cmp(target(impl), expected, shallow=False)
        return None if same else "the edited file differs from sed's"

    def warm_edit(impl: Impl, deadline: float) -> None:
        small = tmp / f"warm-{slug(impl.name)}.txt"
        small.write_text("alpha\nbeta\n")
        arguments = {"file_path": str(small), "old_string": "beta", "new_string": "gamma"}
        impl.call("edit", arguments, str(tmp), deadline)

    mib = source.stat().st_size / MiB
    return Case(
        "3", tmp, f"exact edit of a {mib:.0f} MiB file",
        "edit", "sed -i FILE (its copy untimed)", sed, op,
        setup=lambda impl: shutil.copyfile(source, target(impl)), check=check,
        warm=warm_edit,
        detail=f"{MARKER} (one line, in the middle) -> CHANGED_LINE; a fresh copy each round",
    )  # fmt: skip


def case_bash(tmp: Path, ns: argparse.Namespace) -> Case:
    command = producer(ns.bash_mib * MiB)
    on_disk: dict[str, int] = {}

    def op(impl: Impl, deadline: float) -> str:
        arguments = {"command": command, "timeout": ns.timeout}
        result = impl.call("bash", arguments, str(tmp), deadline)
        path = result.details.get("fullOutputPath")
        if isinstance(path, str) and os.path.exists(path):
            info = os.stat(path)
            on_disk[impl.name] = max(info.st_size, info.st_blocks * 512)
            os.unlink(path)  # pi never removes its copy of the whole output
            return f"full-output file {on_disk[impl.name] / MiB:.0f} MiB"
        return "no full-output file"

    return Case(
        "4", tmp, f"{ns.bash_mib} MiB of bash output", "bash",
        "the same command >/dev/null", quiet("bash", "-c", f"{command} >/dev/null"), op,
        warm=warm("bash", {"command": "true"}, tmp), configure={"bash.soft_yield_s": 3600},
        detail=command,
    )  # fmt: skip


def case_write(tmp: Path, ns: argparse.Namespace) -> Case:
    source = make_text_file(tmp / "write-source.txt", ns.write_mib * MiB)
    content = source.read_text(encoding="utf-8")
    dd_target = tmp / "write-dd.txt"

    def target(impl: Impl) -> Path:
        return tmp / f"write-{slug(impl.name)}.txt"

    def op(impl: Impl, deadline: float) -> str:
        impl.call("write", {"path": str(target(impl)), "content": content}, str(tmp), deadline)
        return ""

    def check(impl: Impl) -> str | None:
        same = filecmp.cmp(target(impl), source, shallow=False)
        target(impl).unlink()
        return None if same else "the written file differs from its content"

    dd = ["dd", f"if={source}", f"of={dd_target}", "bs=1M", "conv=fsync"]
    return Case(
        "5", tmp, f"a {ns.write_mib} MiB write", "write",
        "dd bs=1M conv=fsync", lambda: subprocess.run(dd, check=True, capture_output=True), op,
        check=check, warm=warm("write", {"path": "write-warm.txt", "content": "x\n"}, tmp),
        detail="a new file each round, content sent in one call",
    )  # fmt: skip


def case_small_reads(tmp: Path, ns: argparse.Namespace) -> Case:
    target = make_line_file(tmp / "small.txt", 20)
    arguments = {"path": str(target)}

    def op(impl: Impl, deadline: float) -> str:
        for _ in range(ns.small_reads):
            impl.call("read", arguments, str(tmp), deadline)
        return ""

    baseline = Impl("ref in-proc", InProcessAdapter(REFERENCE_FACTORY, call_timeout=ns.timeout))
    baseline.adapter.start()
    baseline.call("read", arguments, str(tmp), time.monotonic() + ns.timeout)
    return Case(
        "6", tmp, f"{ns.small_reads} small reads", "read",
        "the reference in process", lambda: op(baseline, time.monotonic() + 10 * ns.timeout), op,
        warm=warm("read", arguments, tmp), impls=("ref stdio", "pi stdio"),
        cleanup=baseline.adapter.close,
        detail="a 20-line file, one call after another; the baseline is the reference in process",
    )  # fmt: skip


def plant_tree(root: Path, count: int, file_kib: int) -> None:
    """bench_search's tree, with LITERAL added to every 2000th file (under 100 matches: pi stops
    rg at its 100th match, and every implementation should scan the whole tree)."""
    make_tree(root, count, file_kib)
    for index, path in enumerate(sorted(root.glob("pkg*/mod*/file*"))):
        if index % 2000 == 7:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(f"a line with {LITERAL} in it\n")


def rg(*args: str) -> list[str]:
    return [shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg"), *args]


def case_grep(tree: Path, ns: argparse.Namespace) -> Case:
    arguments = {"pattern": LITERAL, "literal": True, "output_mode": "content"}
    raw = rg("--line-number", "--fixed-strings", "--", LITERAL, ".")

    def baseline() -> None:
        subprocess.run(raw, cwd=tree, capture_output=True, check=True)

    def op(impl: Impl, deadline: float) -> str:
        seen = impl.observe(GrepObservation, "grep", arguments, tree, deadline)
        return f"{sum(1 for line in seen.lines if line.match)} matching lines"

    return Case(
        "7a", tree, f"grep a literal, {ns.tree_files} files", "grep",
        "rg --line-number --fixed-strings (output read from a pipe)", baseline, op,
        warm=warm("grep", {"pattern": LITERAL, "path": "pkg00/mod00", "literal": True}, tree),
        detail=f"{LITERAL!r}, literal, output_mode content",
    )  # fmt: skip


def case_glob(tree: Path, ns: argparse.Namespace) -> Case:
    raw = rg("--files", "-g", "**/*.py")

    def baseline() -> None:
        subprocess.run(raw, cwd=tree, capture_output=True, check=True)

    def op(impl: Impl, deadline: float) -> str:
        seen = impl.observe(GlobObservation, "glob", {"pattern": "**/*.py"}, tree, deadline)
        return f"{len(seen.paths)} paths{' (truncated)' if seen.truncated else ''}"

    return Case(
        "7b", tree, f"glob **/*.py, {ns.tree_files} files", "glob",
        "rg --files -g '**/*.py' (output read from a pipe)", baseline, op,
        warm=warm("glob", {"pattern": "pkg00/mod00/*.py"}, tree),
    )  # fmt: skip


# --- the run ---------------------------------------------------------------------------------


def summary(results: dict[str, tuple[Case, list[Impl]]], names: list[str]) -> None:
    print("\nsummary; each cell: median seconds, ratio to the baseline (the median of the")
    print("per-round ratios), peak RSS of the server process (MiB; n/a in process)")
    print(f"{'case':34} {'baseline':>9}" + "".join(f"  {name:>24}" for name in names))
    for case, impls in results.values():
        base = statistics.median(impls[0].times) if impls[0].times else float("nan")
        line = f"{(case.key + ' ' + case.title)[:34]:34} {base:8.4f}s"
        found = {impl.name: impl for impl in impls[1:]}
        for name in names:
            impl = found.get(name)
            if impl is None:
                cell = "(the baseline)" if case.key == "6" and name == "ref in-proc" else ""
            elif impl.times:
                median = statistics.median(impl.times)
                ratio = statistics.median(impl.ratios)
                peak = f"{impl.peak_kib / 1024:.0f}M" if impl.peak_kib else "n/a"
                cell = f"{median:.3g}s {ratio:6.1f}x {peak:>5}"
            else:  # the status's first words: timed out after N s, refused, skipped ...
                cell = (impl.status or "-").split(" (")[0].split(":")[0]
            line += f"  {cell:>24}"
        print(line)


def as_numbers(
    ns: argparse.Namespace, results: dict[str, tuple[Case, list[Impl]]], load: list[float]
) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    for key, (case, impls) in results.items():
        entry: dict[str, Any] = {
            "title": case.title,
            "baseline": case.baseline_label,
            "baseline_s": round(statistics.median(impls[0].times), 5) if impls[0].times else None,
        }
        for impl in impls[1:]:
            entry[slug(impl.name)] = {
                "median_s": round(statistics.median(impl.times), 5) if impl.times else None,
                "ratio": round(statistics.median(impl.ratios), 2) if impl.ratios else None,
                "peak_rss_mib": round(impl.peak_kib / 1024, 1) if impl.peak_kib else None,
                "rounds_done": len(impl.times),
                "status": impl.status,
                "note": impl.note,
            }
        cases[key] = entry
    return {
        "rounds": ns.rounds,
        "timeout_s": ns.timeout,
        "cpus": os.cpu_count(),
        "load_average_1min_start_end": load,
        "cases": cases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60, help="seconds per operation (60)")
    parser.add_argument("--page-one-mib", type=int, default=400)
    parser.add_argument("--pages-mib", type=float, default=10)
    parser.add_argument("--edit-mib", type=int, default=50)
    parser.add_argument("--bash-mib", type=int, default=1024)
    parser.add_argument("--write-mib", type=int, default=100)
    parser.add_argument("--small-reads", type=int, default=1000)
    parser.add_argument("--tree-files", type=int, default=20_000)
    parser.add_argument("--tree-file-kib", type=int, default=2)
    parser.add_argument("--cases", default="1,2,3,4,5,6,7", help="which cases (1,2,...,7)")
    parser.add_argument("--json", help="also write the numbers here")
    ns = parser.parse_args()
    chosen = set(ns.cases.split(","))
    with_pi = (PI_DIR / "node_modules").is_dir() and shutil.which("node") is not None
    began = time.perf_counter()
    load = [round(os.getloadavg()[0], 2)]
    print(f"load average (1 min) at the start: {load[0]:.2f}; {os.cpu_count()} cpus; "
          f"rounds {ns.rounds}; timeout {ns.timeout:g} s per operation")  # fmt: skip
    if not with_pi:
        missing = "no node on PATH" if shutil.which("node") is None else "no node_modules"
        print(f"pi is not measured ({missing}; cd {PI_DIR} && npm ci --ignore-scripts):")
        print("the reference is measured alone")
    builders: list[tuple[str, Callable[[Path, argparse.Namespace], Case]]] = [
        ("1", case_page_one), ("2", case_pages), ("3", case_edit), ("4", case_bash),
        ("5", case_write), ("6", case_small_reads),
    ]  # fmt: skip
    results: dict[str, tuple[Case, list[Impl]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-vs-pi-") as tmp:
        bench = Bench(ns, Path(tmp), with_pi)
        for key, build in builders:
            if key not in chosen:
                continue
            where = Path(tmp) / f"case{key}"
            where.mkdir()
            case = build(where, ns)
            results[key] = (case, bench.run(case))
            shutil.rmtree(where)
        if "7" in chosen:
            tree = Path(tmp) / "tree"
            tree.mkdir()
            started = time.perf_counter()
            plant_tree(tree, ns.tree_files, ns.tree_file_kib)
            took = time.perf_counter() - started
            print(f"\n(a tree of {ns.tree_files} files, generated in {took:.1f} s)")
            for case in (case_grep(tree, ns), case_glob(tree, ns)):
                results[case.key] = (case, bench.run(case))
    names = ["ref in-proc", "ref stdio"] + (["pi stdio"] if with_pi else [])
    summary(results, names)
    print("implementations: " + "; ".join(f"{k}: {v}" for k, v in bench.versions.items()))
    load.append(round(os.getloadavg()[0], 2))
    print(f"load average (1 min) at the end: {load[-1]:.2f}; "
          f"the run took {time.perf_counter() - began:.0f} s")  # fmt: skip
    if ns.json:
        publish(as_numbers(ns, results, load), ns.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
