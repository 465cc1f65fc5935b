"""Unit tests of the bash building blocks: output view and file, timeouts, env sanitising against
the spec's tables, analysis, rm shim, task polling."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.implementations.reference import command_analysis, env_sanitize, rm_shim
from pytest_agenttools.implementations.reference.bash import parse_timeout
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.output_capture import (
    NOTE_BYTES,
    OutputCapture,
    build_view,
    clean_text,
    count_lines,
    measure_in,
)
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.spec.clauses import load


def view_of(tmp_path: Path, data: bytes, max_size: int, max_lines: int, unit: str = "bytes") -> Any:
    path = tmp_path / "out.log"
    path.write_bytes(data)

    def read(start: int, length: int) -> bytes:
        with open(path, "rb") as handle:
            handle.seek(start)
            return handle.read(length)

    return build_view(read, 0, len(data), max_size, max_lines, unit)


def test_view_small_output_whole(tmp_path: Path) -> None:
    view = view_of(tmp_path, b"a\nb\n", 100, 10)
    assert view.text == "a\nb\n" and not view.truncated


def test_view_empty(tmp_path: Path) -> None:
    view = view_of(tmp_path, b"", 100, 10)
    assert view.text == "" and not view.truncated


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=3000),
    max_size=st.integers(1, 500),
    max_lines=st.integers(1, 30),
    unit=st.sampled_from(["bytes", "chars"]),
)
def test_view_bounds_any_bytes(
    tmp_path_factory: Any, data: bytes, max_size: int, max_lines: int, unit: str
) -> None:
    view = view_of(tmp_path_factory.mktemp("v"), data, max_size, max_lines, unit)
    measure = measure_in(unit)
    if not view.truncated:
        assert view.text == clean_text(data)
        return
    assert measure(view.head) + measure(view.tail) <= max_size
    assert count_lines(view.head) + count_lines(view.tail) <= max_lines
    assert view.omitted_bytes > 0


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.just("\n"), max_size=600),
    max_size=st.integers(4, 200),
    max_lines=st.integers(1, 12),
    unit=st.sampled_from(["bytes", "chars"]),
)
def test_view_keeps_exact_head_and_tail(
    tmp_path_factory: Any, text: str, max_size: int, max_lines: int, unit: str
) -> None:
    view = view_of(tmp_path_factory.mktemp("v"), text.encode(), max_size, max_lines, unit)
    if not view.truncated:
        assert view.text == text
        return
    assert text.startswith(view.head) and text.endswith(view.tail)
    assert view.tail or text.endswith(view.tail), "the tail is kept"
    assert measure_in(unit)(view.head + view.tail) <= max_size
    assert view.text.startswith(view.head) and view.text.endswith(view.tail)


def test_view_split_code_point(tmp_path: Path) -> None:
    view = view_of(tmp_path, ("中" * 400).encode(), 100, 10)
    assert "\ufffd" not in view.text, "a cut inside a code point must not show U+FFFD"


def test_view_counts_chars(tmp_path: Path) -> None:
    data = ("中" * 60 + "\n") * 20
    by_chars = view_of(tmp_path, data.encode(), 200, 100, "chars")
    by_bytes = view_of(tmp_path, data.encode(), 200, 100, "bytes")
    assert len(by_chars.head + by_chars.tail) <= 200 < len((by_chars.head + by_chars.tail).encode())
    assert len((by_bytes.head + by_bytes.tail).encode()) <= 200


def test_clean_text() -> None:
    assert clean_text(b"a\x1b[0m\tb\r\n\x00\x9b\xc2\x85c") == "a[0m\tb\r\n\ufffdc"


PATTERN = b"0123456789abcdef\n"


def _capture(data_size: int, file_max_bytes: int) -> OutputCapture:
    read_end, write_end = os.pipe()
    capture = OutputCapture(read_end, file_max_bytes=file_max_bytes)

    def feed() -> None:
        sent = 0
        block = PATTERN * 4096
        while sent < data_size:
            piece = block[: data_size - sent]
            os.write(write_end, piece)
            sent += len(piece)
        os.close(write_end)

    writer = threading.Thread(target=feed)
    writer.start()
    writer.join()
    capture.finish()
    return capture


def _stream(start: int, length: int) -> bytes:
    first = start % len(PATTERN)
    return (PATTERN * ((first + length) // len(PATTERN) + 1))[first : first + length]


def test_output_file_is_exact_within_its_cap() -> None:
    capture = _capture(100_000, 1 << 20)
    try:
        assert not capture.file_truncated
        assert Path(capture.path).read_bytes() == _stream(0, 100_000)
    finally:
        capture.discard()


def test_output_file_is_bounded() -> None:
    """BASH-OUT-08 at the unit level: 32 MiB printed, a 256 KiB file, exact head and tail."""
    cap, size = 256 * 1024, 32 << 20
    capture = _capture(size, cap)
    try:
        on_disk = Path(capture.path).read_bytes()
        assert capture.file_truncated and capture.size == size
        assert len(on_disk) <= cap, f"{len(on_disk)} bytes on disk, cap {cap}"
        head = cap // 2
        assert on_disk[:head] == _stream(0, head)
        assert b"omitted" in on_disk[head : head + NOTE_BYTES]
        tail = on_disk[head + NOTE_BYTES :]
        assert len(tail) > cap // 3 and tail == _stream(size - len(tail), len(tail))
        assert capture.read(size - 100, 100) == _stream(size - 100, 100)
        assert capture.read(10, 20) == _stream(10, 20)
        assert capture.read(size // 2, 10) == b"", "the dropped middle is not pretended"
        view = capture.view(0, 2000, 40)
        assert view.truncated and _stream(0, size).decode().endswith(view.tail)
    finally:
        capture.discard()


def test_parse_timeout() -> None:
    assert parse_timeout(1, 300) == 1.0
    assert parse_timeout(10**9, 0) == 10**9, "a maximum of 0 is no cap"
    for bad in (0, -1, float("nan"), float("inf"), "5", True, None, 301, 10**400):
        with pytest.raises(ToolError) as caught:
            parse_timeout(bad, 300)
        assert "Error" not in caught.value.message and "timeout" in caught.value.message
    with pytest.raises(ToolError, match="too large"):
        parse_timeout(10**400, 0)


def test_limits_take_zero_for_no_cap_and_ignore_huge_numbers() -> None:
    limits = Limits(extra_defaults={"bash.max_timeout_s": 300.0, "bash.kill_grace_s": 3.0})
    assert limits.apply({"bash.max_timeout_s": 0}) == {"bash.max_timeout_s": 0.0}
    assert limits.apply({"bash.kill_grace_s": 0}) == {}
    assert limits.apply({"bash.kill_grace_s": 10**400}) == {}


# --- env sanitising: the reference against the spec's tables ----------------------------------

SPEC = load()


def test_scrub_list_is_the_spec_table() -> None:
    assert list(env_sanitize.SCRUB_NAMES) == SPEC.table("bash.env_scrub").column("name")
    assert list(env_sanitize.SCRUB_KEPT) == SPEC.table("bash.env_scrub_kept").column("name")


def test_strict_pattern_and_protected_names_are_the_spec_tables() -> None:
    assert env_sanitize.STRICT_PATTERN.pattern == SPEC.table("bash.env_strict").column("pattern")[0]
    assert env_sanitize.STRICT_PATTERN.flags & re.IGNORECASE
    protected = SPEC.table("bash.env_protected").column("name")
    assert set(env_sanitize.PROTECTED) | {"LC_*"} == set(protected)
    assert set(SPEC.table("bash.env_false_words").column("value")) == env_sanitize.FALSE_WORDS


def test_layer_a_is_the_spec_table() -> None:
    rows = {name: rule for name, rule in SPEC.table("bash.env_layer_a").rows}
    assert rows.pop(env_sanitize.BOUNDARY_PREFIX + "*") == "removed"
    assert {n for n, rule in rows.items() if rule == "kept"} == env_sanitize.BOUNDARY_KEEP


@pytest.mark.parametrize(
    ("explicit", "env", "mode"),
    [
        ("strict", {"AGENTTOOLS_BASH_ENV_SANITIZE": "off", "CI": "1"}, "strict"),
        (None, {"AGENTTOOLS_BASH_ENV_SANITIZE": "off", "CI": "1"}, "off"),
        (None, {"CI": "yes"}, "scrub"),
        (None, {"GITHUB_ACTIONS": "FALSE"}, "off"),
        (None, {}, "off"),
    ],
)
def test_mode_choice(explicit: str | None, env: dict[str, str], mode: str) -> None:
    assert env_sanitize.choose_mode(explicit, env) == mode


def test_invalid_mode() -> None:
    with pytest.raises(env_sanitize.InvalidMode):
        env_sanitize.choose_mode("loose", {})


def test_sanitize_reports_names_sorted() -> None:
    result = env_sanitize.sanitize(
        {"Z_TOKEN": "1", "A_SECRET": "2", "PATH": "/bin", "AGENTTOOLS_X": "3"}, "strict"
    )
    assert result.removed == ("AGENTTOOLS_X", "A_SECRET", "Z_TOKEN")
    assert result.env == {"PATH": "/bin"}


def test_prepend_path() -> None:
    env = {"PATH": "/usr/bin:/shim:/bin"}
    env_sanitize.prepend_path(env, ["/shim", "relative", "/shim"])
    assert env["PATH"] == "/shim:/usr/bin:/bin"


# --- the tool in process ---------------------------------------------------------------------


def test_explicit_mode_service(tmp_path: Path) -> None:
    tools = ReferenceTools()
    tools.services["bash.env_sanitize"] = "strict"
    try:
        env = {"PATH": os.environ["PATH"], "MY_TOKEN": "x", "AGENTTOOLS_BASH_ENV_SANITIZE": "off"}
        result = tools.call("bash", {"command": "env"}, str(tmp_path), env)
        assert "MY_TOKEN" not in result["content"][0]["text"]
        assert result["details"]["observation"]["env_removed"] == ["MY_TOKEN"]
    finally:
        tools.shutdown()


def test_every_result_carries_an_observation(tmp_path: Path) -> None:
    tools = ReferenceTools()
    try:
        for tool, arguments, cwd in [
            ("bash", {"command": 7}, str(tmp_path)),
            ("bash", {"command": "true"}, str(tmp_path / "missing")),
            ("task_output", {"task_id": "nope"}, str(tmp_path)),
            ("bash", {"command": "exit 3"}, str(tmp_path)),
        ]:
            result = tools.call(tool, arguments, cwd)
            assert result["isError"] and "observation" in result["details"], (tool, arguments)
    finally:
        tools.shutdown()


def test_finished_task_polled_again(tmp_path: Path) -> None:
    """BASH-BG-06: the old reference answered the second poll with an internal file error."""
    tools = ReferenceTools()
    try:
        started = tools.call(
            "bash", {"command": "echo x", "run_in_background": True}, str(tmp_path)
        )
        task_id = started["details"]["task_id"]
        for _ in range(3):
            result = tools.call("task_output", {"task_id": task_id}, str(tmp_path))
            assert not result["isError"], result["content"][0]["text"]
            assert result["details"]["observation"]["exit_code"] == 0
    finally:
        tools.shutdown()


def test_rm_shim_refuses_when_it_cannot_be_made(tmp_path: Path) -> None:
    tools = ReferenceTools()
    try:
        assert not tools.call("bash", {"command": "true"}, str(tmp_path))["isError"]
        paths = tools.services[rm_shim.SERVICE]
        shutil.rmtree(paths["shims"])
        Path(paths["shims"]).write_text("not a directory")  # the shim cannot be recreated
        result = tools.call("bash", {"command": "touch ran"}, str(tmp_path))
        assert result["isError"] and "rm shim" in result["content"][0]["text"]
        assert not (tmp_path / "ran").exists()
        os.unlink(paths["shims"])
        assert not tools.call("bash", {"command": "true"}, str(tmp_path))["isError"]
    finally:
        tools.shutdown()


def test_rm_shim_recreated(tmp_path: Path) -> None:
    tools = ReferenceTools()
    try:
        tools.call("bash", {"command": "true"}, str(tmp_path))
        shim = os.path.join(tools.services[rm_shim.SERVICE]["shims"], "rm")
        os.unlink(shim)
        (tmp_path / "f").write_text("x")
        assert not tools.call("bash", {"command": "rm f"}, str(tmp_path))["isError"]
        assert os.access(shim, os.X_OK) and not (tmp_path / "f").exists()
    finally:
        tools.shutdown()


def test_rm_shim_made_once_by_concurrent_first_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands that arrive together (a client sends several at once) share one data directory
    and one shim: it is written once while the others wait, and none of them fails. Writing
    is slowed so that every thread is inside ``ensure`` while the first one writes."""
    written: list[str] = []
    original = rm_shim._write_shim

    def slow_write(shim: str, paths: dict[str, str]) -> None:
        written.append(shim)
        time.sleep(0.2)
        original(shim, paths)

    monkeypatch.setattr(rm_shim, "_write_shim", slow_write)
    services: dict[str, Any] = {}
    start = threading.Barrier(6)
    made: list[str] = []
    failed: list[BaseException] = []

    def first_command() -> None:
        start.wait()
        try:
            made.append(rm_shim.ensure(services))
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=first_command) for _ in range(6)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert not failed, failed
        assert len(written) == 1, f"the shim was written {len(written)} times"
        assert len(set(made)) == 1 and len(made) == 6
        assert os.access(os.path.join(made[0], "rm"), os.X_OK)
        assert os.listdir(made[0]) == ["rm"], "a staged copy was left beside the shim"
    finally:
        rm_shim.remove(services)


def test_keepalive_leftovers_end_at_shutdown(tmp_path: Path) -> None:
    """BASH-SHUT-03: the supervisor of a keepalive command stays until shutdown ends them."""
    tools = ReferenceTools()
    tools.configure({"bash.kill_grace_s": 0.2})
    command = "nohup sleep 60 >/dev/null 2>&1 & echo $! > pid"
    assert not tools.call("bash", {"command": command}, str(tmp_path))["isError"]
    pid = int((tmp_path / "pid").read_text())
    os.kill(pid, 0)
    tools.shutdown()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
            return
        time.sleep(0.02)
    os.kill(pid, 9)
    raise AssertionError("the keepalive process outlived the shutdown")


@pytest.mark.parametrize(
    ("command", "parts"),
    [("a && b || c; d | e & f", 6), ("a", 1), ("a\nb", 2), ("a # comment", 1)],
)
def test_split(command: str, parts: int) -> None:
    assert len(command_analysis.analyze(command)["parts"]) == parts


def test_empty_command_fails_closed() -> None:
    assert command_analysis.analyze("")["class"] == "require-human"


def test_keepalive_of_parse_error() -> None:
    assert command_analysis.keepalive_of("nohup x & '") is False


def test_command_longer_than_one_argument(tmp_path: Path) -> None:
    """A command beyond the kernel's 128 KiB argument limit runs (read as a script), and a
    failure to start is said in words, not as a Python exception (ROBUST-ARGS-04)."""
    tools = ReferenceTools()
    try:
        command = ": " + "x" * (1 << 20) + "\necho ran"
        result = tools.call("bash", {"command": command}, str(tmp_path))
        assert not result["isError"] and result["details"]["observation"]["output"] == "ran\n"
    finally:
        tools.shutdown()
