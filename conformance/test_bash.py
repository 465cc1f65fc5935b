"""bash: arguments, timeouts, process setup, exit reporting and the bounded output view."""

from __future__ import annotations

import math
import os
import re
import threading
import time
from typing import Any

import psutil
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools.assertions import expect_error, expect_ok
from pytest_agenttools.markers import clause

from .bash_strategies import wait_for_file

NOTICE = re.compile(r"(\n\n\[[^\n]*\])+\s*$")
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_notices(text: str) -> str:
    return NOTICE.sub("", text)


@clause("BASH-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({}, "command"),
        ({"command": 7}, "command"),
        ({"command": ["echo", "x"]}, "command"),
        ({"command": ""}, "command"),
        ({"command": "   "}, "command"),
        ({"command": "touch ran", "run_in_background": "yes"}, "run_in_background"),
        ({"command": "touch ran", "cwd_override": "/"}, "cwd_override"),
    ],
    ids=["missing", "int", "list", "empty", "blank", "background-string", "unknown"],
)
def test_bad_arguments(tools: Any, ws: Any, arguments: dict[str, Any], mention: str) -> None:
    expect_error(tools.call("bash", **arguments), mention)
    assert not ws.exists("ran"), "a rejected call must not run the command"


@clause("BASH-TIMEOUT-01")
@pytest.mark.parametrize(
    "timeout",
    [0, -1, -0.5, math.nan, math.inf, -math.inf, "10", "abc", 10**9, "over-max"],
    ids=[
        "zero",
        "negative",
        "negative-float",
        "nan",
        "inf",
        "-inf",
        "numeric-string",
        "string",
        "huge",
        "over-max",
    ],
)
def test_invalid_timeout(tools: Any, ws: Any, timeout: Any) -> None:
    if timeout == "over-max":
        timeout = float(tools.limit("bash.max_timeout_s")) + 1
    expect_error(tools.call("bash", command="touch ran", timeout=timeout), "timeout")
    assert not ws.exists("ran"), f"timeout={timeout!r} was refused but the command ran anyway"


@clause("BASH-TIMEOUT-02")
def test_declared_timeouts(tools: Any) -> None:
    default = tools.limit("bash.default_timeout_s")
    cap = tools.limit("bash.max_timeout_s")
    grace = tools.limit("bash.kill_grace_s")
    for name, value in (("default", default), ("cap", cap), ("grace", grace)):
        assert isinstance(value, int | float) and value > 0, f"{name} must be seconds > 0: {value}"
    assert default <= cap, f"default timeout {default} s is above the cap {cap} s"


def _running_pid(tools: Any, ws: Any, command: str) -> tuple[int, Any]:
    pending = tools.submit("bash", command=command, timeout=30)
    pids = wait_for_file(ws.file("pid"))
    assert pids, f"the command never wrote its pid; result: {pending.result(30)!r}"
    return pids[0], pending


@clause("BASH-PROC-01")
def test_own_group_session_and_stdin(tools: Any, ws: Any) -> None:
    pid, pending = _running_pid(
        tools, ws, "echo $$ > pid; cat; while [ ! -e go ]; do sleep 0.05; done"
    )
    try:
        assert os.getpgid(pid) == pid, "the shell must lead its own process group"
        assert os.getsid(pid) == pid, "the shell must lead its own session"
        assert os.getpgid(pid) != os.getpgid(0), "the command shares the caller's process group"
        stdin = os.readlink(f"/proc/{pid}/fd/0")
        assert stdin == "/dev/null", f"stdin must be /dev/null, is {stdin}"
    finally:
        ws.put("go", "")
    expect_ok(pending.result(30))


@clause("BASH-PROC-02")
def test_one_pipe_keeps_interleaving(tools: Any, ws: Any) -> None:
    pid, pending = _running_pid(tools, ws, "echo $$ > pid; while [ ! -e go ]; do sleep 0.05; done")
    try:
        out, err = os.readlink(f"/proc/{pid}/fd/1"), os.readlink(f"/proc/{pid}/fd/2")
        assert out == err and out.startswith("pipe:"), f"stdout is {out}, stderr is {err}"
    finally:
        ws.put("go", "")
    expect_ok(pending.result(30))
    command = "for i in $(seq 1 40); do echo out$i; echo err$i >&2; done"
    result = expect_ok(tools.call("bash", command=command))
    expected = "".join(f"out{i}\nerr{i}\n" for i in range(1, 41))
    assert result.text == expected, f"interleaving lost: {result.text[:200]!r}"


@clause("BASH-CWD-01")
def test_working_directory(tools: Any, ws: Any) -> None:
    result = expect_ok(tools.call("bash", command="pwd -P"))
    assert result.text.strip() == os.path.realpath(ws.root)
    missing = str(ws.root / "gone")
    expect_error(
        tools.call("bash", command="touch ran", _cwd=missing), "Working directory does not exist"
    )


@clause("BASH-EXIT-01")
@pytest.mark.parametrize(
    "text", ["hello\n", "héllo wörld 中文 😀\n", "no newline", "a\tb\r\nc\n"], ids=str.strip
)
def test_success_exact_output(tools: Any, ws: Any, text: str) -> None:
    ws.put("out.txt", text)
    result = expect_ok(tools.call("bash", command="cat out.txt"))
    assert result.text == text


@clause("BASH-EXIT-02")
@pytest.mark.parametrize("code", [1, 2, 7, 127, 255])
def test_nonzero_exit(tools: Any, code: int) -> None:
    result = expect_error(
        tools.call("bash", command=f"echo partial; exit {code}"), f"Command exited with code {code}"
    )
    assert result.text.index("partial") < result.text.index("Command exited with code")


@clause("BASH-EXIT-03")
@pytest.mark.parametrize("name", ["TERM", "KILL", "INT"])
def test_killed_by_signal(tools: Any, name: str) -> None:
    result = tools.call("bash", command=f"echo before; kill -{name} $$")
    expect_error(result, f"Command terminated by signal SIG{name}")
    assert result.text.index("before") < result.text.index("Command terminated")


@clause("BASH-TO-01")
def test_timeout_error_after_output(tools: Any, ws: Any) -> None:
    tools.configure(**{"bash.kill_grace_s": 0.5})
    result = tools.call("bash", command="echo before; sleep 30", timeout=1)
    expect_error(result, "Command timed out after 1 seconds")
    assert result.text.index("before") < result.text.index("Command timed out")


@clause("BASH-OUT-05")
def test_no_output(tools: Any) -> None:
    assert expect_ok(tools.call("bash", command="true")).text == "(no output)"
    failed = expect_error(tools.call("bash", command="exit 3"), "Command exited with code 3")
    assert failed.text.startswith("(no output)")


@clause("BASH-OUT-04")
def test_control_characters_removed(tools: Any, ws: Any) -> None:
    ws.put("raw.bin", b"a\x1b[31mred\x1b[0m\tb\r\nc\x00\x07\x08d\x7f\n")
    text = expect_ok(tools.call("bash", command="cat raw.bin")).text
    assert not CONTROL.search(text), f"control characters left: {text!r}"
    assert "\t" in text and "\r\n" in text, f"tab and CR must stay: {text!r}"
    assert "red" in text and "cd" in text.replace("\n", "")


@clause("BASH-OUT-04")
def test_utf8_split_across_writes(tools: Any) -> None:
    command = (
        r"printf '\xe4'; sleep 0.3; printf '\xb8\xad'; sleep 0.3; printf '\xf0\x9f'; "
        r"sleep 0.3; printf '\x98\x80\n'"
    )
    assert expect_ok(tools.call("bash", command=command)).text == "中😀\n"


@clause("BASH-OUT-04")
def test_invalid_utf8(tools: Any) -> None:
    text = expect_ok(tools.call("bash", command=r"printf 'a\xffb\xc3\n'")).text
    assert text.startswith("a\ufffdb"), f"invalid bytes must become U+FFFD: {text!r}"


def _caps(tools: Any) -> tuple[int, int]:
    """Small caps when configurable; the caps in force either way."""
    wanted = {"bash.output_max_bytes": 2000, "bash.output_max_lines": 40}
    applied = tools.configure(**wanted)
    return tuple(  # type: ignore[return-value]
        int(applied.get(name, tools.limit(name))) for name in wanted
    )


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


segments = st.lists(
    st.tuples(st.integers(0, 300), st.integers(1, 80), st.sampled_from("abxyz中")),
    min_size=0,
    max_size=5,
)


@clause("BASH-OUT-01")
@given(shape=segments, final_newline=st.booleans())
def test_caps_honoured(tools: Any, ws: Any, shape: list[Any], final_newline: bool) -> None:
    max_bytes, max_lines = _caps(tools)
    root = ws.subdir()
    lines = [f"{n}:{ch * length}" for length, count, ch in shape for n in range(count)]
    content = "\n".join(lines) + ("\n" if final_newline and lines else "")
    root.put("out.txt", content)
    result = expect_ok(tools.call("bash", command="cat out.txt", _cwd=str(root.root)))
    fits = len(content.encode()) <= max_bytes and _lines(content) <= max_lines
    if fits:
        assert result.text == (content or "(no output)")
        return
    body = strip_notices(result.text)
    head = _common_prefix(body, content)
    tail = _common_prefix(body[::-1], content[::-1])
    head_text, tail_text = content[:head], content[len(content) - tail :]
    shown = len(head_text.encode()) + len(tail_text.encode())
    assert shown <= max_bytes + 2, f"{shown} bytes of output shown, cap {max_bytes}"
    assert _lines(head_text) + _lines(tail_text) <= max_lines + 2, "line cap exceeded"
    middle = body[head : len(body) - tail]
    assert "omitted" in middle and len(middle) < 300, f"no omitted-middle marker: {middle!r}"
    assert head + tail < len(content), "a cut view must leave something out"


@clause("BASH-OUT-02")
def test_full_output_file(tools: Any, ws: Any) -> None:
    max_bytes, _ = _caps(tools)
    data = bytes(range(256)) * 200 + "中文\n".encode() * 500 + b"\xff\xfe tail end\n"
    ws.put("blob.bin", data)
    result = expect_ok(tools.call("bash", command="cat blob.bin"))
    path = result.details.get("fullOutputPath")
    assert isinstance(path, str), f"a cut view must name the full output: {result.details}"
    assert path in result.text, "the text must name the full output file too"
    with open(path, "rb") as handle:
        assert handle.read() == data, "the full output file must hold the exact bytes"
    assert len(strip_notices(result.text).encode()) <= max_bytes + 300


def _ancestors(pid: int) -> list[psutil.Process]:
    try:
        return [p for p in psutil.Process(pid).parents() if p.pid > 1][:3]
    except psutil.Error:
        return []


@clause("BASH-OUT-03")
def test_bounded_memory(tools: Any, ws: Any) -> None:
    size = 300 * 1024 * 1024
    peak: dict[int, int] = {}
    base: dict[int, int] = {}
    stop = threading.Event()

    def sample() -> None:
        pids = wait_for_file(ws.file("pid"), timeout=30)
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
        result = expect_ok(tools.call("bash", command=command, timeout=120))
    finally:
        stop.set()
        sampler.join(10)
    path = result.details.get("fullOutputPath")
    if isinstance(path, str) and os.path.exists(path):
        os.unlink(path)
    assert base, "could not find the implementation's process to watch"
    growth = max(peak[pid] - base[pid] for pid in base)
    assert growth < 100 * 1024 * 1024, (
        f"printing {size >> 20} MiB grew the implementation's memory by {growth >> 20} MiB"
    )
    assert len(result.text.encode()) < 4 * int(tools.limit("bash.output_max_bytes")) + 1000
