"""The stdio harness survives any adapter: a matrix of misbehaving servers.

For each way a server can misbehave (tests/servers/misbehaving.py), the harness must end the
call with an AdapterError that names the adapter, within the timeouts it was given, and leave
no process behind (checked with psutil: every process the server started, and its whole
process group).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from pytest_agenttools import AdapterError, ToolCall
from pytest_agenttools.connect import stdio
from pytest_agenttools.connect.stdio import StderrTail, StdioAdapter
from tests.support import SERVERS

SERVER = SERVERS / "misbehaving.py"
CALL_TIMEOUT = 1.0
CANCEL_GRACE = 0.5
SHUTDOWN_GRACE = 1.0


@dataclass(frozen=True)
class Case:
    mode: str
    #: what the AdapterError must say (besides naming the adapter)
    expect: str
    #: the longest the whole exchange (start, call, close) may take
    bound: float
    #: size of the call's argument (a wedged reader needs one larger than the pipe buffer)
    payload: int = 0
    during_start: bool = False


CASES = [
    Case("crash", r"exited with status 3.*about to crash", 3.0),
    # the deadline plus the grace after a cancel, plus the close
    Case("hang", r"no answer to read", CALL_TIMEOUT + CANCEL_GRACE + 3.0),
    Case("garbage", r"not JSON-RPC.*this is not json", 3.0),
    Case("stray-id", r"matches no request in flight.*987654", 3.0),
    Case("nested-json", r"not JSON-RPC \(nested too deeply\)", 3.0),
    Case("bad-error-code", r"code is not an integer.*oops", 3.0),
    Case("stderr-flood", r"exited with status 4.*flooded stderr", 6.0),
    Case("exit-initialize", r"exited with status 5.*giving up during initialize", 3.0, 0, True),
    # seen when the process exits, not when the grandchild closes stdout or the deadline passes
    Case("grandchild-stdout", r"exited with status 6.*leaving a grandchild", 3.0),
    Case("orphans", r"exited with status 7.*leaving orphans", 3.0),
    Case(
        "wedged-reader",
        r"no answer to read.*has not read \d+ bytes",
        CALL_TIMEOUT + CANCEL_GRACE + 3.0,
        4 * 1024 * 1024,
    ),
    Case("huge-line", r"answer line longer than 1048576 bytes", 5.0),
]


@dataclass
class Outcome:
    error: str
    seconds: float
    leaked: list[str]


def alive(pid: int) -> psutil.Process | None:
    try:
        process = psutil.Process(pid)
        return None if process.status() == psutil.STATUS_ZOMBIE else process
    except psutil.Error:
        return None


def leaked(pidfile: Path) -> list[str]:
    """Processes the server recorded, or members of its process group, still running."""
    pids = [int(w) for w in pidfile.read_text().split()] if pidfile.exists() else []
    if not pids:
        return []
    group = pids[0]
    found = {p for p in pids if alive(p)}
    for process in psutil.process_iter():
        try:
            if os.getpgid(process.pid) == group:
                found.add(process.pid)
        except (OSError, psutil.Error):
            continue
    out = []
    for pid in sorted(found):
        process = alive(pid)
        if process is not None:
            out.append(f"{pid} {' '.join(process.cmdline())}")
            process.kill()
    return out


def run_case(case: Case, tmp_path: Path) -> Outcome:
    """Start the server, make one call, close; what the harness said and how long it took."""
    pidfile = tmp_path / "pids"
    command = " ".join(shlex.quote(p) for p in (sys.executable, str(SERVER), case.mode))
    adapter = StdioAdapter(
        f"{command} {shlex.quote(str(pidfile))}",
        call_timeout=CALL_TIMEOUT,
        max_line_bytes=1024 * 1024,
    )
    error = ""
    started = time.monotonic()
    try:
        adapter.start()
        arguments = {"path": "x" * case.payload} if case.payload else {"path": "a"}
        adapter.call(ToolCall("read", arguments, str(tmp_path)), timeout=CALL_TIMEOUT)
    except AdapterError as exc:
        error = str(exc)
    finally:
        adapter.close()
    seconds = time.monotonic() - started
    time.sleep(0.1)  # a killed process needs a moment to leave the process table
    return Outcome(error, seconds, leaked(pidfile))


@pytest.fixture(autouse=True)
def short_graces(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(stdio, "CANCEL_GRACE", CANCEL_GRACE)
    monkeypatch.setattr(stdio, "SHUTDOWN_GRACE", SHUTDOWN_GRACE)
    yield


@pytest.mark.parametrize("case", CASES, ids=[c.mode for c in CASES])
def test_misbehaving_adapter(case: Case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert outcome.error, f"{case.mode}: the harness raised no AdapterError"
    assert "misbehaving.py" in outcome.error, f"the error must name the adapter: {outcome.error}"
    assert len(outcome.error) < 20_000, f"the error is not bounded: {len(outcome.error)} chars"
    assert re.search(case.expect, outcome.error, re.S), outcome.error[:3000]
    assert outcome.seconds < case.bound, f"{case.mode} took {outcome.seconds:.1f} s"
    assert not outcome.leaked, f"{case.mode} left processes running: {outcome.leaked}"


def test_ignored_shutdown_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    adapter = StdioAdapter(
        f"{shlex.quote(sys.executable)} {shlex.quote(str(SERVER))} ignore-shutdown {pidfile}",
        call_timeout=CALL_TIMEOUT,
    )
    adapter.start()
    assert adapter.call(ToolCall("read", {"path": "a"}, str(tmp_path))).text == "ok"
    started = time.monotonic()
    adapter.close()
    assert time.monotonic() - started < 2 * SHUTDOWN_GRACE + 1.5
    assert not leaked(pidfile)


def test_timed_out_call_leaves_nothing_at_close(tmp_path: Path) -> None:
    """The last call of a session timed out and its child was retired: close still ends it."""
    pidfile = tmp_path / "pids"
    adapter = StdioAdapter(
        f"{shlex.quote(sys.executable)} {shlex.quote(str(SERVER))} hang {pidfile}",
        call_timeout=CALL_TIMEOUT,
    )
    adapter.start()
    with pytest.raises(AdapterError, match="no answer"):
        adapter.call(ToolCall("read", {"path": "a"}, str(tmp_path)), timeout=0.3)
    adapter.close()
    time.sleep(0.1)
    assert not leaked(pidfile)


def test_crash_error_always_has_the_last_stderr_line(tmp_path: Path) -> None:
    """The crash error is built after the child's stderr was read to its end (no race)."""
    for _ in range(15):
        outcome = run_case(Case("crash", "", 3.0), tmp_path)
        assert "about to crash" in outcome.error, outcome.error


def test_stderr_tail_is_bounded() -> None:
    tail = StderrTail(lines=3, line_bytes=10)
    tail.feed(b"one\ntwo\nthree\n")
    tail.feed(b"x" * 1_000_000)
    tail.feed(b"x" * 1_000_000 + b"\nlast")
    text = tail.text()
    assert text.endswith("two\nthree\nxxxxxxxxxx [... 1999990 more bytes]\nlast"), text
    assert len(text) < 200


def test_unknown_id_while_raw_exchange_goes_to_the_caller(tmp_path: Path) -> None:
    """send_raw returns what the child answered to bytes the harness did not frame."""
    from tests.support import REFERENCE_STDIO

    adapter = StdioAdapter(REFERENCE_STDIO, call_timeout=10)
    adapter.start()
    try:
        pid = adapter.pid
        answers = adapter.send_raw(b'{"jsonrpc":"2.0","id":"raw-1","method":"nope"}\n')
        assert answers and answers[0]["id"] == "raw-1" and answers[0]["error"]["code"] == -32601
        assert adapter.pid == pid
    finally:
        adapter.close()


def test_arguments_too_deep_for_json_are_a_clear_error(tmp_path: Path) -> None:
    from pytest_agenttools.connect.inprocess import InProcessAdapter

    value: object = "x"
    for _ in range(5000):
        value = [value]
    adapter = InProcessAdapter("pytest_agenttools.implementations.reference:create")
    adapter.start()
    try:
        with pytest.raises(AdapterError, match="nested too deeply"):
            adapter.call(ToolCall("read", {"path": value}, str(tmp_path)), timeout=5)
    finally:
        adapter.close()
