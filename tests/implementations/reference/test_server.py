"""The reference's stdio server survives any line, answers each with the right JSON-RPC code,
and cleans up when stdin closes, on ``shutdown`` and on SIGTERM."""

from __future__ import annotations

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
