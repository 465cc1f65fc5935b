"""pi through its stdio adapter (peers/pi): the observations the adapter builds from pi's own
answers, and every deviation peers/pi/expectations.toml lists, shown by calling pi directly.

Each ``test_<behaviour>`` below is named by the ``behaviour`` key of the expectation entries it
backs; ``test_every_expectation_is_shown_here`` keeps the two in step, so no entry can stand on
a layout or a wording the kit once parsed. A demonstration passes while pi behaves so: when a
later pi fixes the behaviour, it fails and names the entries to delete.

pi needs ``npm ci --ignore-scripts`` in ``peers/pi``. Without it the module is skipped, unless
AGENTTOOLS_REQUIRE_PI=1 (CI) makes the absence a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools import AdapterError, Manifest, ToolCall, ToolResult
from pytest_agenttools.cli.runner import VERDICT_ONLY
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.fixtures import builders
from pytest_agenttools.harness.observations import (
    BashObservation,
    EditObservation,
    GrepObservation,
    ReadObservation,
    WriteObservation,
    parse_observation,
)
from tests.support import REPO, run_agenttools, strict_report

PI = REPO / "peers" / "pi"
COMMAND = f"node {shlex.quote(str(PI / 'server.mjs'))}"
EXPECTATIONS = PI / "expectations.toml"


def _installed() -> bool:
    found = (PI / "node_modules" / "@mariozechner" / "pi-coding-agent").is_dir()
    return found and shutil.which("node") is not None


if not _installed():
    if os.environ.get("AGENTTOOLS_REQUIRE_PI") == "1":
        raise RuntimeError("pi is not installed: run `npm ci --ignore-scripts` in peers/pi")
    pytest.skip(
        "pi is not installed (npm ci --ignore-scripts in peers/pi)", allow_module_level=True
    )


class Pi:
    """Calls into one pi server; every result's observation is parsed on the way."""

    def __init__(self, adapter: StdioAdapter) -> None:
        self.adapter = adapter

    def call(
        self,
        tool: str,
        cwd: Path,
        *,
        env: dict[str, str] | None = None,
        deadline: float | None = None,
        **arguments: Any,
    ) -> ToolResult:
        return self.raw(tool, cwd, arguments, env=env, deadline=deadline)

    def raw(
        self,
        tool: str,
        cwd: Path,
        arguments: Any,
        *,
        env: dict[str, str] | None = None,
        deadline: float | None = None,
    ) -> ToolResult:
        result = self.adapter.call(ToolCall(tool, arguments, str(cwd), env), deadline)
        if "observation" in result.details:
            parse_observation(tool, result.details["observation"])
        return result


@pytest.fixture(scope="module")
def pi() -> Iterator[Pi]:
    adapter = StdioAdapter(COMMAND, call_timeout=30)
    adapter.start()
    yield Pi(adapter)
    adapter.close()


@pytest.fixture
def lone_pi() -> Iterator[Pi]:
    """A server of its own, for a call that leaves pi busy or blocked (closed, or killed, after)."""
    adapter = StdioAdapter(COMMAND, call_timeout=30)
    adapter.start()
    yield Pi(adapter)
    adapter.close()


def read(result: ToolResult) -> ReadObservation:
    obs = result.observation
    assert isinstance(obs, ReadObservation)
    return obs


def grep_lines(result: ToolResult, root: Path) -> list[tuple[str, int, str, bool]]:
    obs = result.observation
    assert isinstance(obs, GrepObservation)
    return [(str(Path(x.path).relative_to(root)), x.line, x.text, x.match) for x in obs.lines]


def bash(result: ToolResult) -> BashObservation:
    obs = result.observation
    assert isinstance(obs, BashObservation)
    return obs


def server_processes(adapter: StdioAdapter) -> list[psutil.Process]:
    me = psutil.Process()
    return [
        p for p in me.children(recursive=True) if any("server.mjs" in part for part in p.cmdline())
    ]


# --- the manifest ---------------------------------------------------------------------------


def test_manifest_file_is_the_initialize_answer() -> None:
    adapter = StdioAdapter(COMMAND, call_timeout=30)
    try:
        answered = adapter.start()
    finally:
        adapter.close()
    declared = Manifest.from_wire(tomllib.loads((PI / "manifest.toml").read_text()))
    assert answered.to_wire() == declared.to_wire()
    assert answered.protocol == "agenttools/2"
    assert answered.line_numbers == "none"
    assert answered.argument_name("edit", "old_string") == "oldText"
    limit = answered.limit("read.max_bytes")
    assert limit is not None and (limit.value, limit.unit) == (51200, "bytes")


# --- observations: read ---------------------------------------------------------------------


READ_CASES: list[tuple[str, bytes, dict[str, Any], dict[str, Any]]] = [
    (
        "whole",
        b"a\nb\nc\n",
        {},
        {"start_line": 1, "lines": ["a", "b", "c"], "total_lines": 3, "truncated": False},
    ),
    ("no-final-lf", b"a\nb", {}, {"lines": ["a", "b"], "total_lines": 2}),
    ("blank-last-line", b"a\n\n", {}, {"lines": ["a", ""], "total_lines": 2}),
    ("crlf", b"a\r\nb\r\n", {}, {"lines": ["a\r", "b\r"]}),
    (
        "limit",
        b"a\nb\nc\n",
        {"offset": 2, "limit": 1},
        {
            "start_line": 2,
            "lines": ["b"],
            "truncated": True,
            "truncated_by": "limit",
            "next_offset": 3,
            "total_lines": 4,
        },
    ),
    (
        "limit-empty-line",
        b"a\n\nc\n",
        {"offset": 2, "limit": 1},
        {"start_line": 2, "lines": [""], "next_offset": 3},
    ),
    ("limit-0", b"a\nb\n", {"limit": 0}, {"lines": [], "truncated": True, "next_offset": 1}),
    (
        "limit-negative",
        b"a\nb\nc\n",
        {"limit": -1},
        {"lines": ["a", "b", "c"], "truncated": True, "next_offset": None},
    ),
    ("empty", b"", {}, {"lines": [], "total_lines": 0, "truncated": False}),
    ("bom", b"\xef\xbb\xbfone\ntwo\n", {}, {"lines": ["\ufeffone", "two"]}),
    (
        "line-cap",
        b"".join(b"row %d\n" % n for n in range(1, 2101)),
        {},
        {
            "start_line": 1,
            "truncated": True,
            "truncated_by": "lines",
            "next_offset": 2001,
            "total_lines": 2101,
        },
    ),
    (
        "byte-cap",
        (b"x" * 999 + b"\n") * 60,
        {"offset": 3},
        {
            "start_line": 3,
            "truncated": True,
            "truncated_by": "bytes",
            "next_offset": 54,
            "total_lines": 61,
        },
    ),
    (
        "long-first-line",
        b"y" * 60_000 + b"\nnext\n",
        {},
        {"start_line": 1, "lines": [], "truncated": True, "truncated_by": "bytes"},
    ),
]


@pytest.mark.parametrize(
    ("content", "arguments", "expected"),
    [case[1:] for case in READ_CASES],
    ids=[case[0] for case in READ_CASES],
)
def test_read_observation(
    pi: Pi, tmp_path: Path, content: bytes, arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    (tmp_path / "f.txt").write_bytes(content)
    result = pi.call("read", tmp_path, path="f.txt", **arguments)
    assert not result.is_error, result.text
    raw = result.details["observation"]
    for key, value in expected.items():
        assert raw.get(key) == value, f"{key}: {raw.get(key)!r:.200} != {value!r:.200}"
    obs = read(result)
    if obs.lines:
        assert "\n".join(obs.lines) in result.text, "the shown lines are the text's lines"
    if obs.truncated and obs.next_offset is not None:
        assert obs.next_offset == obs.end_line + 1
        assert f"offset={obs.next_offset}" in result.text


def test_read_observation_of_a_cap_page_holds_the_shown_lines(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"row {n}\n" for n in range(1, 2101)))
    obs = read(pi.call("read", tmp_path, path="f.txt", offset=5))
    assert list(obs.lines) == [f"row {n}" for n in range(5, 2005)]


def test_read_observation_of_an_image(pi: Pi, tmp_path: Path) -> None:
    fixture = REPO / "src" / "pytest_agenttools" / "fixtures" / "files" / "images" / "pixel.png"
    shutil.copyfile(fixture, tmp_path / "shot.bin")
    result = pi.call("read", tmp_path, path="shot.bin")
    obs = read(result)
    assert (obs.kind, obs.mime_type) == ("image", "image/png")
    assert [m for m, _ in result.images] == ["image/png"]


# --- observations: write, edit --------------------------------------------------------------


def test_write_observation(pi: Pi, tmp_path: Path) -> None:
    result = pi.call("write", tmp_path, path="@sub/w.txt", content="héllo\n")
    obs = result.observation
    assert isinstance(obs, WriteObservation)
    assert (obs.path, obs.bytes_written) == (str(tmp_path / "sub" / "w.txt"), 6)
    assert "created" not in obs.raw, "pi does not say whether the file existed"
    assert (tmp_path / "sub" / "w.txt").read_bytes() == "héllo\n".encode()


def test_write_observation_follows_the_call_home(pi: Pi, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = pi.call("write", tmp_path, env={"HOME": str(home)}, path="~/w.txt", content="x")
    obs = result.observation
    assert isinstance(obs, WriteObservation)
    assert obs.path == str(home / "w.txt") and (home / "w.txt").read_text() == "x"


def test_edit_observation(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("one\ntwo\nthree\n")
    result = pi.call(
        "edit",
        tmp_path,
        file_path="e.txt",
        edits=[
            {"old_string": "two", "new_string": "2"},
            {"old_string": "three", "new_string": "3"},
        ],
    )
    obs = result.observation
    assert isinstance(obs, EditObservation)
    assert (obs.path, obs.replacements, obs.first_changed_line) == (str(tmp_path / "e.txt"), 2, 2)
    assert (tmp_path / "e.txt").read_text() == "one\n2\n3\n"


def test_edit_missing_argument_is_named_by_pi(pi: Pi, tmp_path: Path) -> None:
    """An absent canonical argument stays absent: pi's validation names it (newText)."""
    (tmp_path / "e.txt").write_text("a\n")
    result = pi.call("edit", tmp_path, file_path="e.txt", old_string="a")
    assert result.is_error and "newText" in result.text
    assert (tmp_path / "e.txt").read_text() == "a\n"


def test_arguments_that_are_not_an_object_get_pi_s_error_result(pi: Pi, tmp_path: Path) -> None:
    result = pi.raw("write", tmp_path, ["a.txt", "x"])
    assert result.is_error and "must be object" in result.text
    assert list(tmp_path.iterdir()) == []


# --- observations: grep ---------------------------------------------------------------------


def test_grep_observation(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a-1- b.txt").write_text("pre\nneedle: one\npost\n")
    (tmp_path / "c.txt").write_text("x" * 600 + " needle\n")
    result = pi.call("grep", tmp_path, pattern="needle", context=1)
    obs = result.observation
    assert isinstance(obs, GrepObservation)
    assert obs.mode == "content" and not obs.truncated and obs.next_offset is None
    found = sorted(grep_lines(result, tmp_path))
    assert found == sorted(
        [
            ("sub/a-1- b.txt", 1, "pre", False),
            ("sub/a-1- b.txt", 2, "needle: one", True),
            ("sub/a-1- b.txt", 3, "post", False),
            ("c.txt", 1, "x" * 500, True),
            ("c.txt", 2, "", False),
        ]
    )
    assert [x.cut for x in obs.lines if x.path.endswith("c.txt") and x.match] == [True]


def test_grep_observation_of_a_file_and_a_cap(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("needle\n" * 30)
    result = pi.call("grep", tmp_path, pattern="needle", path="many.txt", limit=4)
    obs = result.observation
    assert isinstance(obs, GrepObservation)
    assert [(x.path, x.line) for x in obs.lines] == [
        (str(tmp_path / "many.txt"), n) for n in range(1, 5)
    ]
    assert obs.truncated and obs.next_offset is None
    none = pi.call("grep", tmp_path, pattern="absent-word").observation
    assert isinstance(none, GrepObservation) and none.lines == () and not none.truncated


# --- observations: bash ---------------------------------------------------------------------


def test_bash_observations(pi: Pi, tmp_path: Path) -> None:
    ok = bash(pi.call("bash", tmp_path, command="printf 'hi\\n'", timeout=30))
    assert (ok.exit_code, ok.output, ok.timeout_s, ok.truncated) == (0, "hi\n", 30.0, False)
    quiet = pi.call("bash", tmp_path, command="true")
    assert quiet.text == "(no output)" and bash(quiet).output == ""
    failed = pi.call("bash", tmp_path, command="echo oops; exit 3")
    assert failed.is_error
    assert (bash(failed).exit_code, bash(failed).output) == (3, "oops\n")
    timed = pi.call("bash", tmp_path, command="echo start; sleep 30", timeout=1)
    obs = bash(timed)
    assert timed.is_error and obs.timed_out and obs.exit_code is None
    assert (obs.output, obs.timeout_s) == ("start\n", 1.0)
    refused = pi.call("bash", tmp_path, timeout=5)
    obs = bash(refused)
    assert refused.is_error and obs.output == "" and obs.exit_code is None
    assert not (obs.timed_out or obs.aborted or obs.running), "nothing ran"


def test_bash_cut_output_names_the_full_file(pi: Pi, tmp_path: Path) -> None:
    result = pi.call("bash", tmp_path, command="seq 1 5000")
    obs = bash(result)
    assert obs.truncated and obs.full_output_path is not None
    # pi counts the final LF as line 5001, so its last 2000 lines start at 3002
    assert obs.output == "".join(f"{n}\n" for n in range(3002, 5001))
    assert obs.raw.get("output_head") == "" and obs.raw.get("output_tail") == obs.output
    full = Path(obs.full_output_path).read_text()
    assert full == "".join(f"{n}\n" for n in range(1, 5001))
    os.unlink(obs.full_output_path)


def test_bash_abort_is_observed(pi: Pi, tmp_path: Path) -> None:
    pending = pi.adapter.submit(ToolCall("bash", {"command": "echo go; sleep 30"}, str(tmp_path)))
    time.sleep(1.0)
    pending.cancel()
    result = pending.result(10)
    obs = bash(result)
    assert result.is_error and obs.aborted and obs.output == "go\n"


def test_concurrent_calls_answer_in_any_order(pi: Pi, tmp_path: Path) -> None:
    slow = pi.adapter.submit(ToolCall("bash", {"command": "sleep 2; echo slow"}, str(tmp_path)))
    (tmp_path / "a.txt").write_text("fast\n")
    fast = pi.call("read", tmp_path, path="a.txt")
    assert read(fast).lines == ("fast",) and not slow.done()
    assert bash(slow.result(20)).output == "slow\n"


# --- every expectation is shown here --------------------------------------------------------


def _entries() -> list[dict[str, Any]]:
    data = tomllib.loads(EXPECTATIONS.read_text())
    return [*data.get("xfail", []), *data.get("skip", [])]


def _behaviours(entry: dict[str, Any]) -> list[str]:
    named = entry.get("behaviour")
    return [named] if isinstance(named, str) else list(named or [None])


def test_every_expectation_is_shown_here() -> None:
    missing = [
        f"{entry['id']} (behaviour {name!r})"
        for entry in _entries()
        for name in _behaviours(entry)
        if not callable(globals().get(f"test_{name}"))
    ]
    assert not missing, (
        "these expectation entries name no behaviour demonstrated in this module "
        f'(add `behaviour = "..."` and a test_<behaviour> that shows it): {missing}'
    )
    short = [entry["id"] for entry in _entries() if len(entry["reason"]) < 40]
    assert not short, f"say which pi behaviour breaks the clause: {short}"


# --- the suite, strictly -------------------------------------------------------------------

#: the tools (and the robustness section) whose conformance modules judge observations on this
#: checkout: every tool pi has
MIGRATED = ("read", "write", "edit", "grep", "bash", "robust")


def _tool_of(ident: str) -> str:
    match = re.match(r"(?:test_)?([a-z]+)", ident.lower())
    return match.group(1) if match else ""


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes, non-ASCII kept: TOML has no surrogate escapes)."""
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.kit_long(115)
def test_strict_run_of_the_migrated_suites(tmp_path: Path) -> None:
    kept = [
        (kind, entry)
        for kind in ("xfail", "skip")
        for entry in tomllib.loads(EXPECTATIONS.read_text()).get(kind, [])
        if _tool_of(entry["id"]) in MIGRATED
    ]
    (tmp_path / "expectations.toml").write_text(
        "".join(
            f"[[{kind}]]\nid = {_toml(e['id'])}\nreason = {_toml(e['reason'])}\n\n"
            for kind, e in kept
        )
    )
    run = run_agenttools(
        "run",
        "--cmd",
        COMMAND,
        "--tools",
        ",".join(MIGRATED),
        "--expectations",
        "expectations.toml",
        "--strict",
        "--report-json",
        "pi.json",
        "--",
        "-n",
        "2",
        # the outcomes are the check: minimising the counterexamples of pi's expected failures
        # in the property suites took more than half of the run
        *VERDICT_ONLY,
        cwd=tmp_path,
    )
    summary = strict_report(run, tmp_path / "pi.json")["summary"]
    assert summary["xfailed"] >= 100, "pi's deviations show as expected failures"


# --- read deviations ------------------------------------------------------------------------


def test_read_endless_device(lone_pi: Pi, tmp_path: Path) -> None:
    """/dev/zero: no answer, and the server keeps growing after the cancel."""
    processes = server_processes(lone_pi.adapter)
    before = sum(p.memory_info().rss for p in processes)
    pending = lone_pi.adapter.submit(ToolCall("read", {"path": "/dev/zero"}, str(tmp_path)))
    time.sleep(1.5)
    assert not pending.done(), "pi answered a read of /dev/zero"
    pending.cancel()
    answer = pending.result(10)
    assert answer.is_error and answer.text == "Operation aborted"
    time.sleep(0.5)
    after = sum(p.memory_info().rss for p in processes)
    assert after - before > 100 << 20, "the read goes on (and grows) after the cancel"


def test_read_loads_whole_file(lone_pi: Pi, tmp_path: Path) -> None:
    with open(tmp_path / "huge.log", "wb") as handle:
        for _ in range(64):
            handle.write((b"z" * 1023 + b"\n") * 1024)
    processes = server_processes(lone_pi.adapter)
    before = sum(p.memory_info().rss for p in processes)
    obs = read(lone_pi.call("read", tmp_path, path="huge.log", deadline=60))
    assert len(obs.lines) == 50
    grown = sum(p.memory_info().rss for p in processes) - before
    assert grown > 64 << 20, f"the server grew {grown >> 20} MiB for one page of 64 MiB"


def test_read_fifo_blocks(lone_pi: Pi, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    os.symlink("pipe", tmp_path / "link")
    for name in ("pipe", "link"):
        pending = lone_pi.adapter.submit(ToolCall("read", {"path": name}, str(tmp_path)))
        time.sleep(1.5)
        assert not pending.done(), f"pi answered a read of a FIFO ({name}) without a writer"
        pending.cancel()
        assert pending.result(10).text == "Operation aborted"


def test_read_bmp_shown_as_text(pi: Pi, tmp_path: Path) -> None:
    from PIL import Image

    for name in ("screen.bmp", "screen"):
        Image.new("RGB", (40, 30), (200, 30, 30)).save(tmp_path / name, format="BMP")
        result = pi.call("read", tmp_path, path=name)
        assert not result.is_error and not result.images, name
        assert result.text.startswith("BM") and "bmp" not in result.text.lower(), name


def test_read_video_shown_as_text(pi: Pi, tmp_path: Path) -> None:
    from pytest_agenttools.conformance.test_read_formats import VIDEOS

    for kind, data in VIDEOS.items():
        (tmp_path / f"clip.{kind}").write_bytes(data)
        result = pi.call("read", tmp_path, path=f"clip.{kind}")
        marker = "ftypisom" if kind == "mp4" else "webm"
        assert not result.is_error and marker in result.text, kind
        assert "video" not in result.text.lower(), kind


def test_read_block_device_shown(pi: Pi, tmp_path: Path) -> None:
    try:
        builders.make_block_device(tmp_path / "disk")
    except PermissionError as exc:
        pytest.skip(f"making a block device node needs root or CAP_MKNOD: {exc}")
    os.symlink("disk", tmp_path / "link")
    for name in ("disk", "link"):
        result = pi.call("read", tmp_path, path=name)
        assert (result.is_error, result.text) == (False, ""), name


def test_read_coerces_arguments(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "42").write_text("forty-two\n")
    (tmp_path / "null").write_text("nothing\n")
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    assert read(pi.call("read", tmp_path, path=42)).lines == ("forty-two",)
    assert read(pi.call("read", tmp_path, path=None)).lines == ("nothing",)
    assert read(pi.call("read", tmp_path, path="a.txt", offset="2")).lines == ("two", "three")
    assert read(pi.call("read", tmp_path, path="a.txt", offset=True)).start_line == 1
    missing = pi.call("read", tmp_path, path=43)
    assert missing.is_error and missing.text.startswith("ENOENT")
    assert "path" not in missing.text.replace(str(tmp_path), "")


def test_read_bad_limits_accepted(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    cases = {
        1.5: "one\n\n[1.5 more lines in file. Use offset=2.5 to continue.]",
        0: "\n\n[3 more lines in file. Use offset=1 to continue.]",
        -1: "one\ntwo\n\n[4 more lines in file. Use offset=0 to continue.]",
        -5: "\n\n[8 more lines in file. Use offset=-4 to continue.]",
    }
    for limit, text in cases.items():
        result = pi.call("read", tmp_path, path="a.txt", limit=limit)
        assert (result.is_error, result.text) == (False, text), f"limit={limit}"
    huge = pi.call("read", tmp_path, path="a.txt", limit=-(10**18))
    assert not huge.is_error and read(huge).lines == () and "offset=-" in huge.text


def test_read_binary_shown(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02MARK\x00\n")
    result = pi.call("read", tmp_path, path="blob.bin")
    assert read(result).lines == ("\x00\x01\x02MARK\x00",)


def test_read_bom_shown(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    (tmp_path / "only.txt").write_bytes(b"\xef\xbb\xbf")
    assert read(pi.call("read", tmp_path, path="b.txt", limit=1)).lines == ("\ufeffone\r",)
    assert read(pi.call("read", tmp_path, path="only.txt")).lines == ("\ufeff",)


def test_read_decodes_everything_as_utf8(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xff\xfe" + "hi\n".encode("utf-16-le"))
    (tmp_path / "l.txt").write_bytes(b"caf\xe9\n")
    assert read(pi.call("read", tmp_path, path="w.txt")).lines == (
        "\ufffd\ufffdh\x00i\x00",
        "\x00",
    )
    assert read(pi.call("read", tmp_path, path="l.txt")).lines == ("caf\ufffd",)


def test_read_final_lf_is_a_line(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "seven.txt").write_text("".join(f"l{n}\n" for n in range(1, 8)))
    past = pi.call("read", tmp_path, path="seven.txt", offset=8)
    assert not past.is_error and past.text == ""
    beyond = pi.call("read", tmp_path, path="seven.txt", offset=9)
    assert beyond.text == "Offset 9 is beyond end of file (8 lines total)"
    ends = pi.call("read", tmp_path, path="seven.txt", limit=7)
    assert ends.text.endswith("\n\n[1 more lines in file. Use offset=8 to continue.]")
    (tmp_path / "cap.txt").write_text("".join(f"l{n}\n" for n in range(1, 2001)))
    cap = pi.call("read", tmp_path, path="cap.txt")
    assert cap.text.endswith("[Showing lines 1-2000 of 2001. Use offset=2001 to continue.]")


def test_read_long_line_not_shown(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("b" * 51_250 + "\nnext\n")
    result = pi.call("read", tmp_path, path="big.txt")
    assert result.text == (
        "[Line 1 is 50.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' big.txt | head -c 51200]"
    )
    assert read(result).lines == () and read(result).next_offset is None


def test_read_no_file_url(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("content\n")
    result = pi.call("read", tmp_path, path=f"file://{tmp_path}/plain.txt")
    assert result.is_error and result.text.startswith("ENOENT")
    assert f"{tmp_path}/file:" in result.text


def test_read_empty_text(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    for path in ("e.txt", "/dev/null"):
        result = pi.call("read", tmp_path, path=path)
        assert (result.is_error, result.text) == (False, ""), path


# --- edit deviations ------------------------------------------------------------------------


@pytest.mark.kit_long(15)
def test_edit_diff_is_quadratic(lone_pi: Pi, tmp_path: Path) -> None:
    """The file is written at once; the answer waits for a diff that takes about a minute."""
    (tmp_path / "f.txt").write_text("\n" * 20_000)
    started = time.monotonic()
    with pytest.raises(AdapterError, match="no answer"):
        lone_pi.call(
            "edit",
            tmp_path,
            deadline=10,
            file_path="f.txt",
            old_string="\n" * 20_000,
            new_string="-\n\n" * 10_000,
        )
    assert time.monotonic() - started >= 10
    assert (tmp_path / "f.txt").read_text() == "-\n\n" * 10_000, "written before the diff"


def test_edit_coerces_arguments(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a 1\n")
    pi.call("edit", tmp_path, file_path="f.txt", old_string="a", new_string=None)
    assert (tmp_path / "f.txt").read_text() == "null 1\n"
    pi.call("edit", tmp_path, file_path="f.txt", old_string=1, new_string="one")
    assert (tmp_path / "f.txt").read_text() == "null one\n"
    (tmp_path / "3").write_text("three\n")
    pi.call("edit", tmp_path, file_path=3, old_string="three", new_string="3")
    assert (tmp_path / "3").read_text() == "3\n"
    missing = pi.call("edit", tmp_path, file_path=4, old_string="a", new_string="b")
    assert missing.text == "Could not edit file: 4. Error code: ENOENT."


def test_edit_nul_path_error_code(pi: Pi, tmp_path: Path) -> None:
    result = pi.call("edit", tmp_path, file_path="a\x00b", old_string="a", new_string="b")
    assert result.text == "Could not edit file: a\x00b. Error code: ERR_INVALID_ARG_VALUE."


def test_edit_binary_edited(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"head\x00\x01\x02 text tail\n")
    result = pi.call("edit", tmp_path, file_path="b.bin", old_string="text", new_string="TEXT")
    assert not result.is_error
    assert (tmp_path / "b.bin").read_bytes() == b"head\x00\x01\x02 TEXT tail\n"


def test_edit_latin1_replaced(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"caf\xe9\nline two\n")
    pi.call("edit", tmp_path, file_path="f.txt", old_string="line two", new_string="LINE 2")
    assert (tmp_path / "f.txt").read_bytes() == b"caf\xef\xbf\xbd\nLINE 2\n"


def test_edit_line_endings_unified(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_bytes(b"l1\r\nl2\nl3\r\nl4\n")
    pi.call("edit", tmp_path, file_path="m.txt", old_string="l3", new_string="L3")
    assert (tmp_path / "m.txt").read_bytes() == b"l1\r\nl2\r\nL3\r\nl4\r\n"
    (tmp_path / "r.txt").write_bytes(b"one\rtwo\r")
    pi.call("edit", tmp_path, file_path="r.txt", old_string="one", new_string="1")
    assert (tmp_path / "r.txt").read_bytes() == b"1\ntwo\n"


def test_edit_utf16le_rewritten_as_utf8(pi: Pi, tmp_path: Path) -> None:
    """Not caught by the suite (EDIT-ENC-03 edits non-ASCII text, which pi cannot find in its
    UTF-8 reading of the file): an ASCII old_string is found, and the file is written as UTF-8."""
    before = b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le")
    (tmp_path / "u.txt").write_bytes(before)
    result = pi.call("edit", tmp_path, file_path="u.txt", old_string="w", new_string="W")
    assert not result.is_error
    after = (tmp_path / "u.txt").read_bytes()
    assert after.startswith(b"\xef\xbf\xbd\xef\xbf\xbdh\x00") and b"W\x00" in after


def test_edit_fuzzy_normalises_the_file(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a “b”  \ncall(“t”)   \nz ‘y’\n")
    pi.call("edit", tmp_path, file_path="f.txt", old_string='call("t")', new_string="done()")
    assert (tmp_path / "f.txt").read_text() == "a \"b\"\ndone()\nz 'y'\n"


def test_edit_fuzzy_counts_normalised(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text('x = "a"\ny = 1\nx = “a”\n')
    result = pi.call("edit", tmp_path, file_path="f.txt", old_string='x = "a"', new_string="b")
    assert result.is_error and result.text.startswith("Found 2 occurrences")


def test_edit_fuzzy_disproportionate(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a" + " " * 1000 + "\nb\n")
    result = pi.call("edit", tmp_path, file_path="f.txt", old_string="a\nb", new_string="c")
    assert not result.is_error and (tmp_path / "f.txt").read_text() == "c\n"


def test_edit_duplicates_without_lines(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\ndup\ny\ndup\nz\ndup\n")
    result = pi.call("edit", tmp_path, file_path="f.txt", old_string="dup", new_string="one")
    assert result.text == (
        "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more "
        "context to make it unique."
    )


def test_edit_directory_unnamed(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "subdir").mkdir()
    result = pi.call("edit", tmp_path, file_path="subdir", old_string="a", new_string="b")
    assert result.is_error and result.text == "EISDIR: illegal operation on a directory, read"


def test_edit_not_found_without_next_step(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("abc\n")
    result = pi.call("edit", tmp_path, file_path="f.txt", old_string="zzz", new_string="y")
    assert result.text == (
        "Could not find the exact text in f.txt. The old text must match exactly including all "
        "whitespace and newlines."
    )


# --- write deviations -----------------------------------------------------------------------


def test_write_coerces_arguments(pi: Pi, tmp_path: Path) -> None:
    pi.call("write", tmp_path, path="a.txt", content=12)
    pi.call("write", tmp_path, path="b.txt", content=None)
    pi.call("write", tmp_path, path=7, content="x")
    pi.call("write", tmp_path, path=None, content="y")
    found = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert found == {"a.txt": "12", "b.txt": "null", "7": "x", "null": "y"}


def test_write_surrogates_replaced(pi: Pi, tmp_path: Path) -> None:
    pi.call("write", tmp_path, path="s.txt", content="bad \ud800 char")
    assert (tmp_path / "s.txt").read_bytes() == b"bad \xef\xbf\xbd char"
    pi.call("write", tmp_path, path="a\ud800.txt", content="x")
    assert "a\ufffd.txt" in {p.name for p in tmp_path.iterdir()}


def test_write_in_place(pi: Pi, tmp_path: Path) -> None:
    """pi truncates and writes the same inode (no temporary file renamed over it)."""
    target = tmp_path / "f.txt"
    target.write_text("old\n")
    inode = target.stat().st_ino
    pi.call("write", tmp_path, path="f.txt", content="new\n")
    assert target.read_text() == "new\n" and target.stat().st_ino == inode


def test_write_bom_dropped(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbfold\r\n")
    pi.call("write", tmp_path, path="b.txt", content="new text\n")
    assert (tmp_path / "b.txt").read_bytes() == b"new text\n"


def test_write_utf16le_rewritten(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xff\xfe" + "alt\n".encode("utf-16-le"))
    pi.call("write", tmp_path, path="w.txt", content="neu é\n")
    assert (tmp_path / "w.txt").read_bytes() == "neu é\n".encode()


def test_write_counts_utf16_units(pi: Pi, tmp_path: Path) -> None:
    result = pi.call("write", tmp_path, path="s.txt", content="é€😀\r\n")
    assert result.text == "Successfully wrote 6 bytes to s.txt"
    obs = result.observation
    assert isinstance(obs, WriteObservation) and obs.bytes_written == 6
    assert (tmp_path / "s.txt").stat().st_size == 11


def test_write_dotdot_lexical(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    os.symlink("real/deep", tmp_path / "link")
    pi.call("write", tmp_path, path="link/../x.txt", content="x")
    assert (tmp_path / "x.txt").exists(), "written beside the link"
    assert not (tmp_path / "real" / "x.txt").exists(), "the kernel resolves link/.. to real/"


# --- grep deviations ------------------------------------------------------------------------


def test_grep_unsorted() -> None:
    """pi never asks rg to sort (no --sort): results follow rg's parallel walk."""
    source = (PI / "node_modules/@mariozechner/pi-coding-agent/dist/core/tools/grep.js").read_text()
    assert '"--json", "--line-number", "--color=never", "--hidden"' in source
    assert "--sort" not in source


def test_grep_content_only(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    for mode in ("files_with_matches", "lines", ""):
        result = pi.call("grep", tmp_path, pattern="needle", output_mode=mode)
        obs = result.observation
        assert isinstance(obs, GrepObservation)
        assert (result.text, obs.mode, obs.files) == ("a.txt:1: needle", "content", ()), mode


def test_grep_reads_ripgrep_config(tmp_path: Path) -> None:
    config = tmp_path / "rgrc"
    config.write_text("--ignore-case\n")
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.txt").write_text("NEEDLE\n")
    adapter = StdioAdapter(COMMAND, env={**os.environ, "RIPGREP_CONFIG_PATH": str(config)})
    adapter.start()
    try:
        result = Pi(adapter).call("grep", work, pattern="needle")
    finally:
        adapter.close()
    assert result.text == "a.txt:1: NEEDLE", "rg's configuration made the search ignore case"


def test_grep_drops_non_utf8_names(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("needle\n")
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.txt"), "w") as handle:
        handle.write("needle\n")
    result = pi.call("grep", tmp_path, pattern="needle")
    assert result.text == "ok.txt:1: needle"


def test_grep_glob_one_string(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    result = pi.call("grep", tmp_path, pattern="needle", glob=["*.txt", "*.md"])
    assert result.is_error and "glob: must be string" in result.text


def test_grep_no_offset(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("needle\n" * 150)
    first = pi.call("grep", tmp_path, pattern="needle")
    assert first.text.endswith(
        "[100 matches limit reached. Use limit=200 for more, or refine pattern]"
    )
    later = pi.call("grep", tmp_path, pattern="needle", offset=100)
    assert later.text == first.text, "offset is ignored"


def test_grep_no_timeout() -> None:
    """pi's grep starts rg and waits for it to close; nothing ends a slow search but a cancel."""
    source = (PI / "node_modules/@mariozechner/pi-coding-agent/dist/core/tools/grep.js").read_text()
    assert "setTimeout" not in source and "timeout" not in source.lower()


@pytest.mark.kit_long(10)
def test_grep_huge_context_never_answers(lone_pi: Pi, tmp_path: Path) -> None:
    """A context that spans 200,000 lines: once rg has exited, pi spreads each block into
    ``Array.push``, the call stack overflows inside its async ``close`` handler (an unhandled
    rejection), and the call never settles; a cancel sent then is not answered either."""
    (tmp_path / "big.txt").write_text("".join(f"match {i}\n" for i in range(200_000)))
    arguments = {"pattern": "match", "path": "big.txt", "output_mode": "content"}
    pending = lone_pi.adapter.submit(
        ToolCall("grep", {**arguments, "context": 10**12}, str(tmp_path))
    )
    time.sleep(2)  # rg stops itself at pi's 100 matches within milliseconds
    pending.cancel()
    with pytest.raises(AdapterError, match="no answer") as raised:
        pending.result(3)
    assert "Maximum call stack size exceeded" in str(raised.value)


def test_grep_no_sensitive_exclusions(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=needle-secret\n")
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_text("needle key\n")
    everywhere = pi.call("grep", tmp_path, pattern="needle")
    assert sorted(everywhere.text.split("\n")) == [
        ".env:1: TOKEN=needle-secret",
        ".ssh/id_rsa:1: needle key",
    ]
    rooted = pi.call("grep", tmp_path, pattern="needle", path=".ssh")
    assert rooted.text == "id_rsa:1: needle key"


def test_grep_context_repeats_lines(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("needle 1\nneedle 2\nl3\n")
    result = pi.call("grep", tmp_path, pattern="needle", context=3)
    assert [(n, m) for _, n, _, m in grep_lines(result, tmp_path)] == [
        (1, True), (2, False), (3, False), (4, False),
        (1, False), (2, True), (3, False), (4, False),
    ]  # fmt: skip


MORE = "Use limit=2 for more, or refine pattern]"


def test_grep_unchecked_arguments(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n5\n")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"pattern": ""}, "a.txt:1: x\na.txt:2: 5"),
        ({"pattern": 5}, "a.txt:2: 5"),
        ({"pattern": "x", "limit": 0}, "a.txt:1: x\n\n[1 matches limit reached. " + MORE),
        ({"pattern": "x", "context": -2}, "a.txt:1: x"),
        ({"pattern": "x", "context": 1.5}, "a.txt:1: x\na.txt-2- 5"),
        ({"pattern": "x", "context": "1"}, "a.txt:1: x\na.txt-2- 5"),
        ({"pattern": "x", "literal": 1}, "a.txt:1: x"),
    ]  # fmt: skip
    for arguments, text in cases:
        result = pi.raw("grep", tmp_path, arguments)
        assert (result.is_error, result.text) == (False, text), arguments


def test_grep_regex_error_raw(pi: Pi, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    result = pi.call("grep", tmp_path, pattern="foo(")
    assert result.is_error and result.text.startswith("rg: regex parse error:")
    assert "pattern" not in result.text and "literal" not in result.text


# --- bash deviations ------------------------------------------------------------------------


def test_bash_runs_empty_commands(pi: Pi, tmp_path: Path) -> None:
    for command in ("", "   "):
        result = pi.call("bash", tmp_path, command=command)
        assert (result.is_error, result.text, bash(result).exit_code) == (False, "(no output)", 0)


def test_bash_unchecked_arguments(pi: Pi, tmp_path: Path) -> None:
    number = pi.call("bash", tmp_path, command=7)
    assert bash(number).exit_code == 127 and "7: command not found" in number.text
    pi.call("bash", tmp_path, command="touch bg", run_in_background="yes")
    pi.call("bash", tmp_path, command="touch fg", run_in_background=True)  # in the foreground
    pi.call("bash", tmp_path, command="touch other", cwd_override="/")
    assert (tmp_path / "bg").exists() and (tmp_path / "other").exists()
    assert (tmp_path / "fg").exists()


def test_bash_no_default_timeout(pi: Pi, tmp_path: Path) -> None:
    for arguments in ({}, {"timeout": 0}, {"timeout": -1}, {"timeout": -0.5}, {"timeout": ""}):
        result = pi.call("bash", tmp_path, command="true", **arguments)
        assert not result.is_error and bash(result).timeout_s is None, arguments


def test_bash_timeout_overflows(pi: Pi, tmp_path: Path) -> None:
    """setTimeout(10^12 ms) overflows and fires at once: a 20 s sleep "times out" at once."""
    result = pi.call("bash", tmp_path, command="sleep 20", timeout=10**9, deadline=10)
    assert result.text == "Command timed out after 1000000000 seconds"
    assert bash(result).timed_out and bash(result).timeout_s == 10**9


def test_bash_signal_is_success(pi: Pi, tmp_path: Path) -> None:
    for name in ("TERM", "INT", "KILL"):
        result = pi.call("bash", tmp_path, command=f"echo before; kill -{name} $$")
        obs = bash(result)
        assert (result.is_error, result.text, obs.exit_code, obs.signal) == (
            False,
            "before\n",
            None,
            None,
        ), name


def test_bash_sigkill_at_once(pi: Pi, tmp_path: Path) -> None:
    command = "trap 'echo trapped > trap.txt' TERM; sleep 30 & wait"
    timed = pi.call("bash", tmp_path, command=command, timeout=1)
    assert bash(timed).timed_out
    pending = pi.adapter.submit(ToolCall("bash", {"command": command}, str(tmp_path)))
    time.sleep(1.0)
    pending.cancel()
    assert bash(pending.result(10)).aborted
    time.sleep(0.5)
    assert not (tmp_path / "trap.txt").exists(), "no SIGTERM reached the shell"


def test_bash_leftovers_survive(pi: Pi, tmp_path: Path) -> None:
    marker = f"agenttools-pi-{os.getpid()}-{time.monotonic_ns()}"
    result = pi.call("bash", tmp_path, command=f"(exec -a {marker} sleep 60) & echo started")
    assert result.text == "started\n"
    alive = [
        p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])
    ]
    try:
        assert alive, "the background job outlived the call"
    finally:
        for process in alive:
            process.kill()


def test_bash_setsid_child_survives(pi: Pi, tmp_path: Path) -> None:
    """pi's timeout kills the command's process group; a `setsid` child is in a group of its own."""
    marker = f"agenttools-pi-setsid-{os.getpid()}-{time.monotonic_ns()}"
    command = f"setsid bash -c 'exec -a {marker} sleep 60' & sleep 30"
    assert bash(pi.call("bash", tmp_path, command=command, timeout=1)).timed_out
    time.sleep(0.5)
    alive = [
        p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])
    ]
    try:
        assert alive, "the setsid child outlived the timeout"
    finally:
        for process in alive:
            process.kill()


def test_bash_streams_apart() -> None:
    """pi spawns bash with two pipes (stdio ignore, pipe, pipe) and reads each on its own."""
    source = (PI / "node_modules/@mariozechner/pi-coding-agent/dist/core/tools/bash.js").read_text()
    assert 'stdio: ["ignore", "pipe", "pipe"]' in source
    assert (
        'child.stdout?.on("data", onData);' in source
        and 'child.stderr?.on("data", onData);' in source
    )


def test_bash_control_characters_kept(pi: Pi, tmp_path: Path) -> None:
    result = pi.call(
        "bash", tmp_path, command="printf 'a\\033[31mred\\033[0m\\000\\007\\010\\177\\n'"
    )
    assert result.text == "a\x1b[31mred\x1b[0m\x00\x07\x08\x7f\n"


def test_bash_commands_outlive_a_killed_pi(tmp_path: Path) -> None:
    """SIGKILL of the server's process, as BASH-SHUT-05 sends it: the adapter's own server dies
    at once with it, and pi's command, in a session of its own, runs on. (Started here by hand:
    the kit's stdio adapter ends a dead server's orphans itself.)"""
    server = subprocess.Popen(
        shlex.split(COMMAND),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert server.stdin is not None
    requests = [
        {"id": 1, "method": "initialize", "params": {"protocol": "agenttools/2"}},
        {
            "id": 2,
            "method": "call",
            "params": {
                "tool": "bash",
                "arguments": {"command": "echo $$ > pid; sleep 60"},
                "cwd": str(tmp_path),
            },
        },
    ]
    server.stdin.write(
        b"".join(json.dumps({"jsonrpc": "2.0", **r}).encode() + b"\n" for r in requests)
    )
    server.stdin.flush()
    shell = None
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "pid").exists() or not (tmp_path / "pid").read_text().strip():
            assert time.monotonic() < deadline, "the command did not start"
            time.sleep(0.05)
        shell = psutil.Process(int((tmp_path / "pid").read_text()))
        servers = [psutil.Process(server.pid), *psutil.Process(server.pid).children()]
        server.kill()
        server.wait(5)
        _, alive = psutil.wait_procs(servers, timeout=5)
        assert not alive, f"the adapter's server outlived its launcher: {alive}"
        time.sleep(1.0)
        assert shell.is_running() and shell.status() != psutil.STATUS_ZOMBIE, "the command ended"
    finally:
        if shell is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(5)


def test_bash_full_output_unbounded(pi: Pi, tmp_path: Path) -> None:
    """The full-output file gets every byte (checked at 4 MiB; the suite prints 1 GiB)."""
    result = pi.call("bash", tmp_path, command="head -c 4194304 /dev/zero | tr '\\0' 'q'")
    obs = bash(result)
    assert obs.truncated and obs.full_output_path is not None
    try:
        assert os.path.getsize(obs.full_output_path) == 4 << 20
    finally:
        os.unlink(obs.full_output_path)


def test_bash_cut_notice_gives_the_path_only(pi: Pi, tmp_path: Path) -> None:
    """The notice of a cut names the full-output file and says nothing about re-running."""
    from pytest_agenttools.conformance.bash_strategies import RERUN_ADVICE

    result = pi.call("bash", tmp_path, command="seq 1 5000")
    obs = bash(result)
    assert obs.truncated and obs.full_output_path is not None
    try:
        assert f"Full output: {obs.full_output_path}]" in result.text
        assert not RERUN_ADVICE.search(result.text)
    finally:
        os.unlink(obs.full_output_path)


def test_smoke_script_passes(tmp_path: Path) -> None:
    """peers/pi/smoke.py: the protocol end to end, stdout only for protocol lines."""
    done = subprocess.run(
        [sys.executable, str(PI / "smoke.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "SMOKE OK" in done.stdout
