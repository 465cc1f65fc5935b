"""The reference's stdio server survives any line, answers each with the right JSON-RPC code,
and cleans up when stdin closes, on ``shutdown`` and on SIGTERM."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools import ToolCall
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.exception_text import find_exception_text
from pytest_agenttools.implementations.reference import fsport
from tests.support import REFERENCE_STDIO

PARSE, INVALID, NO_METHOD, PARAMS = -32700, -32600, -32601, -32602


@pytest.fixture
def server() -> Iterator[StdioAdapter]:
    adapter = StdioAdapter(REFERENCE_STDIO, call_timeout=30)
    adapter.start()
    yield adapter
    adapter.close()


def request(ident: Any, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def call_line(ident: Any, tool: str, cwd: str, **arguments: Any) -> bytes:
    return request(ident, "call", {"tool": tool, "cwd": cwd, "arguments": arguments})


LINES: list[tuple[str, bytes, int]] = [
    ("non-utf8", b"\xff\xfe{}\n", PARSE),
    ("not-json", b"{nope\n", PARSE),
    ("nan-literal", b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":NaN}}\n', PARSE),
    ("nested-500", b"[" * 500 + b"]" * 500 + b"\n", INVALID),
    ("nested-100k", b"[" * 100_000 + b"\n", PARSE),
    ("huge-int-id", b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}\n', INVALID),
    ("list-id", request([1], "call", {"tool": "read"}), INVALID),
    ("object-id", request({"a": 1}, "initialize"), INVALID),
    ("float-id", request(1.5, "initialize"), INVALID),
    ("bool-id", request(True, "initialize"), INVALID),
    ("array", b"[]\n", INVALID),
    ("string", b'"call"\n', INVALID),
    ("no-jsonrpc", b'{"id":"a","method":"initialize"}\n', INVALID),
    ("method-int", b'{"jsonrpc":"2.0","id":"a","method":7}\n', INVALID),
    ("params-string", b'{"jsonrpc":"2.0","id":"a","method":"call","params":"x"}\n', INVALID),
    ("unknown-method", request("a", "frobnicate", {}), NO_METHOD),
    ("unknown-tool", request("a", "call", {"tool": "nosuch", "cwd": "/"}), PARAMS),
    ("env-not-object", request("a", "call", {"tool": "read", "cwd": "/", "env": 3}), PARAMS),
    ("env-values", request("a", "call", {"tool": "read", "cwd": "/", "env": {"A": 1}}), PARAMS),
    ("cwd-int", request("a", "call", {"tool": "read", "cwd": 5}), PARAMS),
    ("configure-list", request("a", "configure", {"settings": [1]}), PARAMS),
    ("huge-float-line", b'{"jsonrpc":"2.0","id":1e999,"method":"x"}\n', INVALID),
]


@pytest.mark.parametrize("line, code", [(x[1], x[2]) for x in LINES], ids=[x[0] for x in LINES])
def test_bad_line_is_answered_and_the_server_lives(
    server: StdioAdapter, tmp_path: Path, line: bytes, code: int
) -> None:
    pid = server.pid
    answers = server.send_raw(line)
    assert answers, f"no answer to {line[:80]!r}"
    error = answers[0].get("error")
    assert isinstance(error, dict) and error["code"] == code, answers[0]
    assert not find_exception_text(error["message"]), error["message"]
    if code in (PARSE, INVALID) and b'"id": "a"' not in line and b'"id":"a"' not in line:
        assert answers[0]["id"] is None, answers[0]
    assert server.pid == pid and server.restarts == 0
    assert not server.call(ToolCall("glob", {"pattern": "*"}, str(tmp_path))).is_error


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[1]}}\n',
        b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"a":null}}}\n',
        b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":[]}\n',
        b'{"jsonrpc":"2.0","method":"call","params":{"tool":"read"}}\n',
        b"\n",
        b"   \n",
    ],
)
def test_notifications_are_never_answered(
    server: StdioAdapter, tmp_path: Path, line: bytes
) -> None:
    pid = server.pid
    assert server.send_raw(line, timeout=0.5) == []
    assert server.pid == pid
    assert not server.call(ToolCall("glob", {"pattern": "*"}, str(tmp_path))).is_error


def test_string_and_integer_ids_are_echoed(server: StdioAdapter) -> None:
    for ident in ("raw-x", "", "\ud800", -5, 2**70):
        answers = server.send_raw(request(ident, "nope"))
        assert answers and answers[0]["id"] == ident, answers


def test_configure_ignores_numbers_beyond_float_range(server: StdioAdapter) -> None:
    line = (
        b'{"jsonrpc":"2.0","id":"c","method":"configure","params":{"settings":'
        b'{"bash.default_timeout_s":1e999,"read.max_lines":1' + b"0" * 400 + b"}}}\n"
    )
    answers = server.send_raw(line)
    assert answers == [{"jsonrpc": "2.0", "id": "c", "result": {"applied": {}}}]


def test_overlong_line_is_answered_with_its_id(tmp_path: Path) -> None:
    adapter = StdioAdapter(f"{REFERENCE_STDIO} --max-line-bytes 100000", call_timeout=30)
    adapter.start()
    try:
        pid = adapter.pid
        content = "a" * 300_000
        line = call_line(7, "write", str(tmp_path), path="big.txt", content=content)
        chunks = (line[i : i + 65536] for i in range(0, len(line), 65536))
        answers = adapter.send_raw(chunks)
        assert answers and answers[0]["id"] == 7 and answers[0]["error"]["code"] == INVALID
        assert "100000 bytes" in answers[0]["error"]["message"]
        assert adapter.pid == pid and not (tmp_path / "big.txt").exists()
        assert not adapter.call(ToolCall("glob", {"pattern": "*"}, str(tmp_path))).is_error
    finally:
        adapter.close()


def test_duplicate_id_in_flight_is_refused(server: StdioAdapter, tmp_path: Path) -> None:
    line = call_line("dup", "bash", str(tmp_path), command="sleep 2")
    answers = server.send_raw(line + line, answers=1, timeout=1.5)
    assert answers and answers[0]["error"]["code"] == INVALID, answers
    assert "already in use" in answers[0]["error"]["message"]


def _server_env(tmp: Path) -> dict[str, str]:
    tmp.mkdir()
    return {**os.environ, "TMPDIR": str(tmp)}


def _start_busy_server(tmp_path: Path) -> tuple[StdioAdapter, Path, int]:
    """A server with a bash output log, an rm shim and trash, and a background task."""
    scratch = tmp_path / "scratch"
    adapter = StdioAdapter(REFERENCE_STDIO, call_timeout=30, env=_server_env(scratch))
    adapter.start()
    work = tmp_path / "ws"
    work.mkdir()
    (work / "doomed").write_text("x")
    command = "rm doomed; seq 1 200000; sleep 300 & echo $! > pid; wait"
    result = adapter.call(
        ToolCall("bash", {"command": command, "run_in_background": True}, str(work)), 30
    )
    assert not result.is_error, result.text
    deadline = time.monotonic() + 10
    while not (work / "pid").exists() or not (work / "pid").read_text().strip():
        assert time.monotonic() < deadline, "the background task never started"
        time.sleep(0.02)
    assert any(scratch.iterdir()), "the server made no temp files to clean"
    return adapter, scratch, int((work / "pid").read_text())


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def test_end_of_input_cleans_up_and_exits(tmp_path: Path) -> None:
    adapter, scratch, sleeper = _start_busy_server(tmp_path)
    status = adapter.end_input(timeout=15)
    assert status == 0, "the server must exit by itself when its stdin closes"
    assert _gone(sleeper), "a background task survived end of input"
    assert list(scratch.iterdir()) == [], "temp files left behind"


def test_sigterm_cleans_up_and_exits(tmp_path: Path) -> None:
    adapter, scratch, sleeper = _start_busy_server(tmp_path)
    pid = adapter.pid
    assert pid is not None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    adapter.close()
    assert _gone(pid) and _gone(sleeper)
    assert list(scratch.iterdir()) == [], "temp files left behind"


def test_shutdown_cleans_up(tmp_path: Path) -> None:
    adapter, scratch, sleeper = _start_busy_server(tmp_path)
    adapter.close()
    assert _gone(sleeper) and not adapter.leftovers
    assert list(scratch.iterdir()) == [], "temp files left behind"


def test_exit_under_a_stuck_call(tmp_path: Path) -> None:
    """A call that ignores its cancel cannot keep the server alive after end of input."""
    script = (
        "import threading, time\n"
        "from pytest_agenttools.implementations.reference.server import serve\n"
        "from pytest_agenttools.implementations.reference.toolbox import ReferenceTools\n"
        "tools = ReferenceTools(runs={'read': lambda a, c: time.sleep(3600)})\n"
        "serve(tools=tools, exit_process=True)\n"
    )
    # run from tmp_path, as a user's child would be: no directory of the checkout is involved
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert proc.stdin is not None
    proc.stdin.write(call_line(1, "read", str(tmp_path), path="x"))
    proc.stdin.close()
    # the stuck call sleeps an hour: exiting at all is the point, so the bound is generous (a
    # loaded machine may take seconds to start Python and import the reference)
    try:
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert proc.stderr is not None
    said = proc.stderr.read()
    assert code == 0, said
    assert b"did not end" in said, said


def test_an_overlong_line_error_says_how_to_raise_the_limit(tmp_path: Path) -> None:
    adapter = StdioAdapter(f"{REFERENCE_STDIO} --max-line-bytes 4096", call_timeout=30)
    adapter.start()
    try:
        line = call_line("big", "write", str(tmp_path), path="f.txt", content="a" * 10_000)
        answers = adapter.send_raw(line)
        message = answers[0]["error"]["message"]
        assert answers[0]["id"] == "big" and "4096 bytes" in message
        assert "--max-line-bytes" in message and "in parts" in message
    finally:
        adapter.close()


def test_an_id_is_free_again_as_soon_as_its_answer_is_read(
    server: StdioAdapter, tmp_path: Path
) -> None:
    """The id is released before the answer is written: 200 calls in a row on one id."""
    (tmp_path / "f.txt").write_text("x\n")
    line = call_line("same", "read", str(tmp_path), path="f.txt")
    refused = []
    for _ in range(200):
        answer = server.send_raw(line)[0]
        if "error" in answer or answer["result"]["isError"]:
            refused.append(answer)
    assert refused == [], f"{len(refused)} of 200 reuses refused: {refused[:1]}"


LIMITED_SERVER = """\
import resource
from pytest_agenttools.implementations.reference.server import serve
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

tools = ReferenceTools()
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
# the address space the server has now, plus {headroom} bytes: enough to serve small calls,
# not to read and parse a line of tens of megabytes
resource.setrlimit(resource.RLIMIT_AS, (size + {headroom}, resource.RLIM_INFINITY))
serve(tools=tools, exit_process=True)
"""


def test_a_request_too_big_for_the_memory_left_is_answered_and_the_server_lives(
    tmp_path: Path,
) -> None:
    script = tmp_path / "limited.py"
    script.write_text(LIMITED_SERVER.format(headroom=96 * 1024 * 1024))
    adapter = StdioAdapter(f"{sys.executable} {script}", call_timeout=60)
    adapter.start()
    try:
        pid = adapter.pid
        assert not adapter.call(ToolCall("glob", {"pattern": "*"}, str(tmp_path))).is_error
        line = call_line("huge", "write", str(tmp_path), path="big.txt", content="a" * 48_000_000)
        step = 1 << 20
        chunks = (line[i : i + step] for i in range(0, len(line), step))
        answers = adapter.send_raw(chunks, timeout=60)
        assert answers, "no answer to a request the server had no memory for"
        error = answers[0]["error"]
        assert error["code"] == -32603 and "ran out of memory" in error["message"], answers
        assert find_exception_text(error["message"]) is None
        assert adapter.pid == pid, "the server died"
        assert not (tmp_path / "big.txt").exists()
        result = adapter.call(
            ToolCall("write", {"path": "s.txt", "content": "ok\n"}, str(tmp_path))
        )
        assert not result.is_error and (tmp_path / "s.txt").read_text() == "ok\n"
    finally:
        adapter.close()


def test_the_next_start_sweeps_what_a_killed_server_left(tmp_path: Path) -> None:
    adapter, scratch, sleeper = _start_busy_server(tmp_path)
    pid = adapter.pid
    assert pid is not None
    left = sorted(p.name for p in scratch.iterdir())
    assert any(name.startswith(f"agenttools-data-{pid}-") for name in left), left
    assert any(name.startswith(f"agenttools-bash-{pid}-") for name in left), left
    os.kill(pid, signal.SIGKILL)
    adapter.close()
    with contextlib.suppress(ProcessLookupError):
        os.kill(sleeper, signal.SIGKILL)
    assert sorted(p.name for p in scratch.iterdir()) == left, "nothing cleans up after SIGKILL"
    live = scratch / (fsport.owned_prefix("data") + "live")  # this test's process: alive
    live.mkdir()
    (scratch / "agenttools-bash-notours.log").write_text("")
    (scratch / "unrelated.txt").write_text("")
    nxt = StdioAdapter(REFERENCE_STDIO, call_timeout=30, env={**os.environ, "TMPDIR": str(scratch)})
    nxt.start()
    try:
        assert not nxt.call(ToolCall("glob", {"pattern": "*"}, str(tmp_path))).is_error
        assert sorted(p.name for p in scratch.iterdir()) == sorted(
            [live.name, "agenttools-bash-notours.log", "unrelated.txt"]
        )
    finally:
        nxt.close()
