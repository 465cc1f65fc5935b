"""bash output beyond the view: the full-output file (exact, and bounded) and bounded memory.

Sizes come from the declared caps (shrunk with ``configure`` when settable); an undeclared cap
is probed with output far beyond any sane one, after a smaller probe shows that the view is
bounded (a tool that returns all it captured would otherwise flood the kit's memory).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass

import psutil

from pytest_agenttools import ToolClient, ToolResult, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    SANE_VIEW_BYTES,
    drain,
    view_caps,
    wait_for_file,
)
from pytest_agenttools.harness.assertions import bash_obs, expect_ok
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.markers import clause, long
from pytest_agenttools.harness.observations import BashObservation


def _pattern(start: int, length: int) -> bytes:
    """Bytes ``[start, start + length)`` of ``yes 0123456789abcdef``."""
    first = start % len(PATTERN)
    reps = (first + length) // len(PATTERN) + 1
    return (PATTERN * reps)[first : first + length]


@dataclass(frozen=True)
class Ended:
    """How a long command ended, over every view it was shown in."""

    #: the last observation (the call's own, or the background task's final poll)
    last: BashObservation
    #: some view was cut
    truncated: bool
    #: the full-output file the views named (the last one named)
    full_output_path: str | None
    #: the full-output file was cut (as the last view that named it says)
    full_output_truncated: bool
    #: the largest view shown, in bytes
    largest_view: int


def _ended(tools: ToolClient, result: ToolResult, timeout: float) -> Ended:
    """How a long command ended: its own result, or, when it passed the soft-yield window and
    went to the background (a legal outcome the spec allows a long command), the views of the
    background task until it ended. A busy machine makes a command slower; it must not make
    its verdict different."""
    first = bash_obs(expect_ok(result))
    views = [first]
    if first.background and first.running and first.task_id:
        _, polls = drain(tools, first.task_id, timeout=timeout)
        views += [bash_obs(poll) for poll in polls]
    named = [v for v in views if v.full_output_path]
    return Ended(
        last=views[-1],
        truncated=any(v.truncated for v in views),
        full_output_path=named[-1].full_output_path if named else None,
        full_output_truncated=bool(named and named[-1].full_output_truncated),
        largest_view=max(len(v.output.encode("utf-8", "surrogatepass")) for v in views),
    )


def _digest(path: str) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


@clause("BASH-OUT-07")
def test_full_output_file(tools: ToolClient, ws: Workspace) -> None:
    caps = view_caps(tools)
    size = caps.size * 4 + 4096 if caps.size is not None else 16 << 20
    file_cap = tools.limit("bash.output_file_max_bytes")
    if file_cap is not None:
        size = min(size, int(file_cap.value))
    chunk = bytes(range(256)) + "中文 é\n".encode() + b"\xff\xfe\n"
    data = (chunk * (size // len(chunk) + 1))[: size - 9] + b"tail end\n"
    ws.put("blob.bin", data)
    obs = _ended(tools, tools.call("bash", command="cat blob.bin", timeout=120), 120)
    assert obs.truncated, f"{len(data)} bytes were shown whole: the view should be cut"
    path = obs.full_output_path
    assert path, f"a cut view must name the full output file: {dict(obs.last.raw)!r:.300}"
    assert not obs.full_output_truncated, "the output was within the file cap"
    assert os.path.getsize(path) == len(data), (
        f"the full output file holds {os.path.getsize(path)} bytes, the command printed {len(data)}"
    )
    assert _digest(path) == hashlib.sha256(data).hexdigest(), (
        "the full output file must hold the exact bytes printed"
    )


PATTERN = b"0123456789abcdef\n"
EIGHT_MIB = "head -c 8388608 /dev/zero | tr '\\0' a"


def _matching_prefix(path: str, expected: bytes) -> int:
    with open(path, "rb") as handle:
        head = handle.read(len(expected))
    n = 0
    while n < len(head) and head[n] == expected[n]:
        n += 1
    return n


@clause("BASH-OUT-08")
def test_full_output_file_is_bounded(tools: ToolClient, ws: Workspace) -> None:
    applied = tools.configure(**{"bash.output_file_max_bytes": 256 * 1024})
    declared = tools.limit("bash.output_file_max_bytes")
    cap = int(applied.get("bash.output_file_max_bytes", declared.value if declared else 0)) or None
    if cap is None:  # a 1 GiB probe only where the view is bounded: else it floods memory
        first = _ended(tools, tools.call("bash", command=EIGHT_MIB), 60)
        assert first.truncated, "8 MiB of output shown whole: the view is not bounded"
        _check_bounded_file(tools, 1 << 30, None)
        return
    # just past the cap (a file cut only once it is far over its cap is still over it), and far
    for printed in (cap + cap // 4, cap * 4):
        _check_bounded_file(tools, printed, cap)


def _check_bounded_file(tools: ToolClient, printed: int, cap: int | None) -> None:
    command = f"yes 0123456789abcdef | head -c {printed}"
    obs = _ended(tools, tools.call("bash", command=command, timeout=300), 300)
    assert obs.truncated and obs.full_output_path, (
        f"the view should be cut: {dict(obs.last.raw)!r:.300}"
    )
    path = obs.full_output_path
    on_disk = os.stat(path)
    used = max(on_disk.st_size, on_disk.st_blocks * 512)
    try:
        bound = cap + 1024 if cap is not None else printed // 2
        assert used <= bound, (
            f"the full output file takes {used} bytes after printing {printed}; the bound is "
            f"{bound} (bash.output_file_max_bytes: {cap})"
        )
        assert obs.full_output_truncated, "the observation must say the full-output file was cut"
        assert _matching_prefix(path, _pattern(0, 4096)) >= min(1024, on_disk.st_size // 4), (
            "the full-output file must keep an exact start of the output"
        )
        with open(path, "rb") as handle:
            handle.seek(max(0, on_disk.st_size - 1024))
            end = handle.read()
        assert end and end == _pattern(printed - len(end), len(end)), (
            "the full-output file must keep an exact end of the output"
        )
    finally:
        if cap is None and os.path.exists(path):
            os.unlink(path)  # a failing implementation may have left a huge file


def _ancestors(pid: int) -> list[psutil.Process]:
    try:
        return [p for p in psutil.Process(pid).parents() if p.pid > 1][:3]
    except psutil.Error:
        return []


@clause("BASH-OUT-03")
@long(1.2)
def test_bounded_memory(tools: ToolClient, ws: Workspace) -> None:
    first = _ended(tools, tools.call("bash", command=EIGHT_MIB), 60)
    assert first.truncated, (
        "8 MiB of output shown whole: the view is not bounded, so the 300 MiB probe is not sent"
    )
    size = 300 * 1024 * 1024
    peak: dict[int, int] = {}
    base: dict[int, int] = {}
    stop = threading.Event()

    def sample() -> None:
        pids = wait_for_file(ws.file("pid"), timeout=30)  # scaled by wait_for_file
        watched = _ancestors(pids[0]) if pids else []
        while not stop.is_set():
            for proc in watched:
                try:
                    rss = proc.memory_info().rss
                except psutil.Error:
                    continue
                base.setdefault(proc.pid, rss)
                peak[proc.pid] = max(peak.get(proc.pid, 0), rss)
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    command = f"echo $$ > pid; sleep 0.3; head -c {size} /dev/zero | tr '\\0' 'a'"
    try:
        # judged through the background task when the command was handed over: its capture
        # goes on in the same processes, which the sampler keeps watching until it ends
        obs = _ended(tools, tools.call("bash", command=command, timeout=120), 120)
    finally:
        stop.set()
        sampler.join(scaled(10))
    if obs.full_output_path and os.path.exists(obs.full_output_path):
        os.unlink(obs.full_output_path)
    assert base, "could not find the implementation's process to watch"
    growth = max(peak[pid] - base[pid] for pid in base)
    assert growth < 100 * 1024 * 1024, (
        f"printing {size >> 20} MiB grew the implementation's memory by {growth >> 20} MiB"
    )
    assert obs.truncated and obs.largest_view < SANE_VIEW_BYTES
