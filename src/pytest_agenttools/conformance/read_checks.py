"""Shared by the read suite modules: observed pages, paging, ceilings, memory and error probes.

Everything here judges what every correct implementation shares: the observation
(``details.observation``), the process table, and text only through neutral checks.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psutil

from pytest_agenttools import ToolClient, ToolResult
from pytest_agenttools.conformance.bash_strategies import second_instance
from pytest_agenttools.harness.assertions import expect_ok, read_obs, shown
from pytest_agenttools.harness.contract import Limit
from pytest_agenttools.harness.exception_text import find_exception_text
from pytest_agenttools.harness.observations import ReadObservation

#: seconds: far beyond any sane answer; only a hang gets near it
PROMPT = 20.0
#: what an undeclared cap must still bound a page to (docs/spec.md, read)
CEILING_LINES = 10_000
CEILING_TEXT = 1 << 20
#: READ-STREAM-02: how much the implementation's peak resident memory may grow for page one
MEMORY_GROWTH = 16 << 20

#: a JavaScript stack frame with a relative path, which the shared detectors (absolute paths,
#: ``node:`` and ``file://`` frames) leave out
JS_FRAME = re.compile(r"^\s+at \S[^\n]*\(?\S+\.(?:js|mjs|cjs|ts):\d+:\d+\)?$", re.M)


def observed(tools: ToolClient, **arguments: Any) -> tuple[ToolResult, ReadObservation]:
    """A successful read and its observation."""
    result = expect_ok(tools.read(**arguments), "read")
    return result, read_obs(result)


def file_lines(text: str) -> list[str]:
    """The lines of ``text`` as read counts them: split on LF only, no line after a final LF."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def size_in(lines: list[str] | tuple[str, ...], unit: str) -> int:
    """The size of shown lines, each with its LF, in ``unit`` (bytes: UTF-8; chars)."""
    if unit == "chars":
        return sum(len(line) + 1 for line in lines)
    return sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)


def expect_bounded_page(obs: ReadObservation, where: str) -> None:
    """An undeclared cap still bounds the page: the ceilings of docs/spec.md, read."""
    assert len(obs.lines) <= CEILING_LINES, (
        f"{where}: page one shows {len(obs.lines)} lines; with no declared cap a page must still "
        f"be bounded (at most {CEILING_LINES})"
    )
    size = size_in(obs.lines, "bytes")
    assert size <= CEILING_TEXT, (
        f"{where}: page one shows {size} bytes of text; with no declared cap a page must still "
        f"be bounded (at most {CEILING_TEXT})"
    )


def expect_continues(obs: ReadObservation, where: str) -> None:
    assert obs.truncated and obs.next_offset == obs.end_line + 1, (
        f"{where}: more lines follow, so the page must be truncated with next_offset = "
        f"{obs.end_line + 1}; saw truncated={obs.truncated}, next_offset={obs.next_offset}"
    )


def limit_in_force(tools: ToolClient, name: str, shrink_to: int | None = None) -> Limit | None:
    """The declared limit, shrunk to ``shrink_to`` for this test where configurable; None when
    undeclared (the test then probes)."""
    declared = tools.limit(name)
    if declared is None or shrink_to is None:
        return declared
    applied = tools.configure(**{name: shrink_to})
    if name in applied:
        return Limit(name, applied[name], declared.unit)
    return declared


def read_all(tools: ToolClient, path: str, max_calls: int = 10_000) -> list[tuple[int, str, bool]]:
    """Follow ``next_offset`` from 1; every (number, line, cut) shown, in order."""
    seen: list[tuple[int, str, bool]] = []
    offset = 1
    for _ in range(max_calls):
        _, obs = observed(tools, path=path, offset=offset)
        assert obs.lines, f"read(offset={offset}) showed no line but did not end the file"
        assert obs.start_line == offset, f"read(offset={offset}) starts at line {obs.start_line}"
        cut = set(obs.cut_lines)
        seen.extend((n, line, n in cut) for n, line in obs.numbered)
        if obs.next_offset is None:
            assert not obs.truncated, f"read(offset={offset}) is truncated without next_offset"
            return seen
        assert obs.next_offset == obs.end_line + 1, (
            f"read(offset={offset}) shows lines {offset}-{obs.end_line} but next_offset is "
            f"{obs.next_offset}"
        )
        offset = obs.next_offset
    raise AssertionError(f"still paging after {max_calls} calls")


def expect_no_exception_text(result: ToolResult) -> None:
    """No stack trace or exception line of any runtime in the text (READ-ARG-05)."""
    frame = JS_FRAME.search(result.text)
    found = find_exception_text(result.text) or (repr(frame.group(0)) if frame else None)
    assert found is None, (
        f"the answer carries exception text ({found}); a tool must turn every failure into a "
        f"clear message: {shown(result)}"
    )


# --- memory of the implementation's processes (READ-STREAM-02) ------------------------------


def _status_kib(pid: int, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak(pid: int) -> bool:
    """Reset the kernel's peak-RSS mark of ``pid`` (Linux ``clear_refs`` 5)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def implementation_processes() -> list[psutil.Process]:
    """This process (an in-process implementation) and every process it started."""
    me = psutil.Process()
    try:
        return [me, *me.children(recursive=True)]
    except psutil.Error:
        return [me]


@contextlib.contextmanager
def fresh_process(
    tools: ToolClient, config: Any, later: Callable[[Callable[[], object]], None]
) -> Iterator[ToolClient]:
    """The implementation under test started anew in a process of its own, warmed up by one
    small read, for a measurement of memory that the session's history cannot hide.

    A process that earlier calls grew keeps its heap (V8, glibc and CPython keep freed memory
    for reuse), so a whole-file load can fit in it without raising its peak: the verdict would
    then turn on which tests ran before. A stdio or MCP implementation gets a new server; an
    in-process one is served over stdio from a child (``python -m pytest_agenttools.cli serve
    --impl``) with this process's import path. The small read first loads what a first call
    loads (modules, compiled code), which is no page's doing.
    """
    with second_instance(config, later, apart=True) as adapter:
        yield _warmed(ToolClient(adapter, tools.manifest, tools.workspace, tools.env))


def _warmed(client: ToolClient) -> ToolClient:
    small = client.workspace.file("warm-up.txt")
    small.write_text("".join(f"line {i}\n" for i in range(100)))
    expect_ok(client.call("read", path="warm-up.txt", _timeout=60), "a read of 100 short lines")
    small.unlink()
    return client


def peak_memory_growth(action: Callable[[], Any]) -> tuple[int, Any]:
    """Run ``action``; return the largest growth of peak resident memory over the processes
    that existed before it (bytes), and what ``action`` returned.

    The kernel's high-water mark is reset before the call where it can be (Linux); elsewhere,
    and for processes whose mark cannot be reset, a sampler polls resident memory.
    """
    before: dict[int, int] = {}
    sampled: list[psutil.Process] = []
    for process in implementation_processes():
        try:
            before[process.pid] = process.memory_info().rss
        except psutil.Error:
            continue
        if not _reset_peak(process.pid) or _status_kib(process.pid, "VmHWM") is None:
            sampled.append(process)
    peaks = dict(before)
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for process in sampled:
                with contextlib.suppress(psutil.Error):
                    peaks[process.pid] = max(peaks[process.pid], process.memory_info().rss)
            time.sleep(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    if sampled:
        sampler.start()
    try:
        answer = action()
    finally:
        stop.set()
        if sampled:
            sampler.join()
    growth = 0
    for pid, rss in before.items():
        peak = _status_kib(pid, "VmHWM") if pid not in {p.pid for p in sampled} else None
        top = max(peak or 0, peaks[pid])
        growth = max(growth, top - rss)
    return growth, answer


@contextlib.contextmanager
def kept_fd0(path: str) -> Iterator[None]:
    """Within the block, this process's fd 0 reads ``path`` (restored after)."""
    saved = os.dup(0)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.dup2(fd, 0)
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(fd)
