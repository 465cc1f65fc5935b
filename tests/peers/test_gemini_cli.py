"""Gemini CLI's read_file, write_file and replace through their stdio adapter (peers/gemini-cli):
the observations the adapter builds from the tools' own answers, and every deviation
peers/gemini-cli/expectations.toml lists, shown by calling the tools.

The demonstrations call the tools through the adapter's raw results: the text of the function
response the CLI gives the model, ``details`` (the executor's status, the tool's error type and
returnDisplay) and the bytes on disk, never the observation. Each ``test_<behaviour>`` below is
named by the ``behaviour`` key of the entries it backs; ``test_every_expectation_is_shown_here``
keeps the two in step. A demonstration passes while the tool behaves so: when a later release
fixes the behaviour, it fails and names the entries to delete.

The peer needs ``npm ci --ignore-scripts`` in ``peers/gemini-cli``. Without it the module is
skipped, unless AGENTTOOLS_REQUIRE_GEMINI=1 makes the absence a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools import AdapterError, Manifest, ToolCall, ToolResult
from pytest_agenttools.cli.runner import VERDICT_ONLY
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.fixtures import builders
from pytest_agenttools.harness.observations import (
    EditObservation,
    ReadObservation,
    WriteObservation,
    parse_observation,
)
from tests.support import REPO, run_agenttools, strict_report

PEER = REPO / "peers" / "gemini-cli"
COMMAND = f"node {shlex.quote(str(PEER / 'server.mjs'))}"
EXPECTATIONS = PEER / "expectations.toml"
#: the tools the peer declares, and the robustness clauses: the whole expectations file is judged
SUITE_TOOLS = ("read", "write", "edit", "robust")


def _installed() -> bool:
    found = (PEER / "node_modules" / "@google" / "gemini-cli-core").is_dir()
    return found and shutil.which("node") is not None


if not _installed():
    if os.environ.get("AGENTTOOLS_REQUIRE_GEMINI") == "1":
        raise RuntimeError(
            "gemini-cli-core is not installed: run `npm ci --ignore-scripts` in peers/gemini-cli"
        )
    pytest.skip(
        "gemini-cli-core is not installed (npm ci --ignore-scripts in peers/gemini-cli)",
        allow_module_level=True,
    )


class Peer:
    """Calls into one adapter process; every result's observation is parsed on the way."""

    def __init__(self, adapter: StdioAdapter) -> None:
        self.adapter = adapter
        self.manifest = adapter.start()

    def call(
        self, tool: str, cwd: Path, *, deadline: float | None = None, **args: Any
    ) -> ToolResult:
        result = self.adapter.call(ToolCall(tool, args, str(cwd)), deadline)
        if "observation" in result.details:
            parse_observation(tool, result.details["observation"])
        return result


def _adapter() -> StdioAdapter:
    return StdioAdapter(COMMAND, call_timeout=30)


@pytest.fixture(scope="module")
def peer() -> Iterator[Peer]:
    adapter = _adapter()
    yield Peer(adapter)
    adapter.close()


@pytest.fixture
def lone_peer() -> Iterator[Peer]:
    """A server of its own, for a call that leaves the tool busy or blocked."""
    adapter = _adapter()
    yield Peer(adapter)
    adapter.close()


def read(result: ToolResult) -> ReadObservation:
    assert not result.is_error, result.text
    obs = result.observation
    assert isinstance(obs, ReadObservation)
    for line in obs.lines:
        assert line in result.text
    return obs


# --- the manifest ---------------------------------------------------------------------------


def test_manifest_file_is_the_initialize_answer(peer: Peer) -> None:
    answered = peer.manifest
    declared = Manifest.from_wire(tomllib.loads((PEER / "manifest.toml").read_text()))
    assert answered.to_wire() == declared.to_wire()
    assert (answered.name, answered.version, answered.protocol) == (
        "gemini-cli",
        json.loads((PEER / "package.json").read_text())["dependencies"]["@google/gemini-cli-core"],
        "agenttools/2",
    )
    assert answered.tools == frozenset({"read", "write", "edit"})
    assert answered.line_numbers == "none"
    assert answered.offset_base("read") == 1
    assert answered.argument_name("read", "offset") == "start_line"
    assert answered.argument_name("edit", "replace_all") == "allow_multiple"
    cap = answered.limit("read.max_lines")
    assert cap is not None and cap.value == 2000


# --- observations ----------------------------------------------------------------------------


def test_read_observations(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    whole = read(peer.call("read", tmp_path, path="a.txt"))
    assert (whole.start_line, whole.lines, whole.total_lines, whole.truncated) == (
        1,
        ("one", "two", "three"),
        3,
        False,
    )
    page = read(peer.call("read", tmp_path, path="a.txt", offset=2, limit=1))
    assert (page.start_line, page.lines, page.truncated_by, page.next_offset) == (
        2,
        ("two",),
        "limit",
        3,
    )
    assert page.total_lines == 4, "the tool's own count: the final LF makes one more line"
    (tmp_path / "many.txt").write_text("".join(f"row {n}\n" for n in range(1, 2101)))
    capped = read(peer.call("read", tmp_path, path="many.txt"))
    assert (len(capped.lines), capped.truncated_by, capped.next_offset) == (2000, "lines", 2001)
    (tmp_path / "long.txt").write_text("y" * 3000 + "\nshort\n")
    cut = read(peer.call("read", tmp_path, path="long.txt"))
    assert (cut.cut_lines, cut.lines[0], cut.lines[1]) == ((1,), "y" * 2000, "short")
    (tmp_path / "e.txt").write_bytes(b"")
    assert read(peer.call("read", tmp_path, path="e.txt")).lines == ()


def test_read_image(peer: Peer, tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (tmp_path / "p.png").write_bytes(png)
    result = peer.call("read", tmp_path, path="p.png")
    obs = result.observation
    assert isinstance(obs, ReadObservation)
    assert (obs.kind, obs.mime_type) == ("image", "image/png")
    assert result.images == [("image/png", png)]


def test_write_and_edit_observations(peer: Peer, tmp_path: Path) -> None:
    written = peer.call("write", tmp_path, path="sub/w.txt", content="héllo\nhello\n")
    obs = written.observation
    assert isinstance(obs, WriteObservation)
    target = tmp_path / "sub" / "w.txt"
    assert (obs.path, obs.bytes_written, obs.created) == (str(target), 13, True)
    assert target.stat().st_size == obs.bytes_written
    again = peer.call("write", tmp_path, path="sub/w.txt", content="héllo\nhello\n").observation
    assert isinstance(again, WriteObservation) and again.created is False
    edited = peer.call(
        "edit",
        tmp_path,
        file_path="sub/w.txt",
        old_string="llo",
        new_string="LLO",
        replace_all=True,
    )
    change = edited.observation
    assert isinstance(change, EditObservation)
    assert (change.path, change.replacements) == (str(target), 2)
    assert target.read_text() == "héLLO\nheLLO\n"
    refused = peer.call("edit", tmp_path, file_path="sub/w.txt", old_string="zz", new_string="y")
    assert refused.is_error and "observation" not in refused.details


def test_argument_errors_come_from_the_tools_validation(peer: Peer, tmp_path: Path) -> None:
    missing = peer.call("read", tmp_path)
    assert missing.is_error and missing.text == "params must have required property 'file_path'"
    bad = peer.call("read", tmp_path, path="a.txt", offset=0)
    assert bad.is_error and "start_line" in bad.text
    shapeless = peer.adapter.call(ToolCall("write", [], str(tmp_path)))
    assert shapeless.is_error


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
    assert not short, f"say which behaviour of the tool breaks the clause: {short}"


# --- the suite, strictly -------------------------------------------------------------------


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.kit_long(46)
def test_strict_run(tmp_path: Path) -> None:
    kept = [
        (kind, entry)
        for kind in ("xfail", "skip")
        for entry in tomllib.loads(EXPECTATIONS.read_text()).get(kind, [])
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
        ",".join(SUITE_TOOLS),
        "--expectations",
        "expectations.toml",
        "--strict",
        "--report-json",
        "gemini-cli.json",
        "--",
        "-n",
        "2",
        *VERDICT_ONLY,
        cwd=tmp_path,
    )
    report = strict_report(run, tmp_path / "gemini-cli.json")
    assert report["implementation"]["name"] == "gemini-cli"
    assert report["summary"]["xfailed"] >= 40, "the deviations show as expected failures"


# --- read deviations ------------------------------------------------------------------------

NOTICE = re.compile(r"Status: Showing lines (\d+)-(\d+) of (\d+) total lines\.")


def test_read_final_lf_is_a_line(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 61)))
    tail = peer.call("read", tmp_path, path="f.txt", offset=59, limit=5)
    notice = NOTICE.search(tail.text)
    assert notice is not None and notice.groups() == ("59", "61", "61")
    assert tail.text.endswith("line 59\nline 60\n"), "the empty 61st line is shown"
    (tmp_path / "cap.txt").write_text("".join(f"row {n}\n" for n in range(1, 2001)))
    first = peer.call("read", tmp_path, path="cap.txt")
    assert "Showing lines 1-2000 of 2001 total lines" in first.text
    wide = peer.call("read", tmp_path, path="cap.txt", offset=1, limit=2020)
    assert "Showing lines" not in wide.text and len(wide.text.split("\n")) == 2001, (
        "an explicit end_line is not held to the 2000-line cap"
    )


def test_read_offset_past_end_accepted(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"{n}\n" for n in range(7)))
    result = peer.call("read", tmp_path, path="f.txt", offset=1000)
    assert not result.is_error
    assert "Showing lines 9-8 of 8 total lines" in result.text
    assert result.text.endswith("--- FILE CONTENT (truncated) ---\n")


def test_read_crlf_shown_as_lf(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "c.txt").write_bytes(b"alpha\r\nbeta\nlone\rcr\r\n")
    result = peer.call("read", tmp_path, path="c.txt")
    assert result.text == "alpha\nbeta\nlone\rcr\n"


def test_read_non_utf8_text(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "l.txt").write_bytes("café crème\nà bientôt\n".encode("latin-1"))
    latin = peer.call("read", tmp_path, path="l.txt")
    assert (latin.is_error, latin.text) == (False, "Cannot display content of binary file: l.txt")
    (tmp_path / "u.txt").write_bytes("naïve café\nend ".encode() + b"\xc3")
    cut = peer.call("read", tmp_path, path="u.txt")
    assert cut.text == "naïve café\nend \ufffd"


def test_read_binary_shown(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "blob.txt").write_bytes(b"\x7f" * 240 + b"\nafter\n")
    result = peer.call("read", tmp_path, path="blob.txt")
    assert (result.is_error, result.text) == (False, "\x7f" * 240 + "\nafter\n")


def test_read_block_device_shown(peer: Peer, tmp_path: Path) -> None:
    try:
        builders.make_block_device(tmp_path / "disk")
    except PermissionError as exc:
        pytest.skip(f"making a block device node needs root or CAP_MKNOD here: {exc}")
    result = peer.call("read", tmp_path, path="disk")
    assert (result.is_error, result.text) == (False, "")


def test_read_outside_workspace_refused(peer: Peer, tmp_path: Path) -> None:
    result = peer.call("read", tmp_path, path="/dev/null")
    assert result.is_error
    assert result.text.startswith('Path not in workspace: Attempted path "/dev/null"')


def test_read_empty_text(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    result = peer.call("read", tmp_path, path="e.txt")
    assert (result.is_error, result.text) == (False, "")


def test_read_fifo_blocks(peer: Peer, tmp_path: Path) -> None:
    """Unanswered while nobody writes; a writer that opens and closes the FIFO ends the reads."""
    os.mkfifo(tmp_path / "pipe")
    os.symlink("pipe", tmp_path / "link")
    pending = [
        peer.adapter.submit(ToolCall("read", {"path": name}, str(tmp_path)))
        for name in ("pipe", "link")
    ]
    time.sleep(1.5)
    assert not any(call.done() for call in pending), "read_file answered a read of a FIFO"
    deadline = time.monotonic() + 10
    while not all(call.done() for call in pending) and time.monotonic() < deadline:
        with contextlib.suppress(OSError):  # ENXIO: no reader is waiting at this moment
            os.close(os.open(tmp_path / "pipe", os.O_WRONLY | os.O_NONBLOCK))
        time.sleep(0.05)
    assert [call.result(1).text for call in pending] == ["", ""], "an empty read once written"


def test_read_refuses_files_over_20mb(peer: Peer, tmp_path: Path) -> None:
    with open(tmp_path / "big.log", "wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    result = peer.call("read", tmp_path, path="big.log", offset=1, limit=1)
    assert result.is_error
    assert result.text.startswith("File size exceeds the 20MB limit:")


def test_read_media_by_name(peer: Peer, tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (tmp_path / "p.txt").write_bytes(png)
    as_txt = peer.call("read", tmp_path, path="p.txt")
    assert (as_txt.is_error, as_txt.text, as_txt.images) == (
        False,
        "Cannot display content of binary file: p.txt",
        [],
    )
    bmp = b"BM" + b"\x00" * 60
    (tmp_path / "s.bmp").write_bytes(bmp)
    named = peer.call("read", tmp_path, path="s.bmp")
    assert named.images == [("image/bmp", bmp)] and "bmp" not in named.text.lower()
    mp4 = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 40
    (tmp_path / "clip.mp4").write_bytes(mp4)
    video = peer.call("read", tmp_path, path="clip.mp4")
    assert not video.is_error
    assert video.text == (
        "Binary content (video/mp4) read successfully. "
        "Content will be injected for analysis in the next sequence."
    )
    (tmp_path / "clip").write_bytes(mp4)
    unnamed = peer.call("read", tmp_path, path="clip")
    assert (unnamed.is_error, unnamed.text) == (
        False,
        "Cannot display content of binary file: clip",
    )


# --- write deviations -----------------------------------------------------------------------


def test_write_in_place(peer: Peer, tmp_path: Path) -> None:
    """The same inode is truncated and rewritten: no temporary file renamed over it."""
    target = tmp_path / "f.txt"
    target.write_text("old\n")
    inode = target.stat().st_ino
    peer.call("write", tmp_path, path="f.txt", content="new\n")
    assert target.read_text() == "new\n" and target.stat().st_ino == inode


def test_write_bom_dropped(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbfold\n")
    peer.call("write", tmp_path, path="b.txt", content="new text\n")
    assert (tmp_path / "b.txt").read_bytes() == b"new text\n"


def test_write_utf16le_rewritten(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xff\xfe" + "alt\n".encode("utf-16-le"))
    peer.call("write", tmp_path, path="w.txt", content="neu é\n")
    assert (tmp_path / "w.txt").read_bytes() == "neu é\n".encode()


def test_write_surrogates_replaced(peer: Peer, tmp_path: Path) -> None:
    assert not peer.call("write", tmp_path, path="s.txt", content="bad \ud800 char").is_error
    assert (tmp_path / "s.txt").read_bytes() == b"bad \xef\xbf\xbd char"
    assert not peer.call("write", tmp_path, path="a\ud800.txt", content="x").is_error
    assert "a\ufffd.txt" in {p.name for p in tmp_path.iterdir()}


def test_write_nul_removed(peer: Peer, tmp_path: Path) -> None:
    result = peer.call("write", tmp_path, path="a\x00b.txt", content="x")
    assert not result.is_error
    assert (tmp_path / "ab.txt").read_text() == "x"


def test_write_dotdot_lexical(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    os.symlink("real/deep", tmp_path / "link")
    peer.call("write", tmp_path, path="link/../x.txt", content="x")
    assert (tmp_path / "x.txt").exists(), "written beside the link"
    assert not (tmp_path / "real" / "x.txt").exists(), "the kernel resolves link/.. to real/"


# --- edit deviations ------------------------------------------------------------------------


def test_edit_binary_edited(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"head\x00\x01\x02 text tail\n")
    result = peer.call("edit", tmp_path, file_path="b.bin", old_string="text", new_string="TEXT")
    assert not result.is_error
    assert (tmp_path / "b.bin").read_bytes() == b"head\x00\x01\x02 TEXT tail\n"


def test_edit_latin1_replaced(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"caf\xe9\nline two\n")
    peer.call("edit", tmp_path, file_path="f.txt", old_string="line two", new_string="LINE 2")
    assert (tmp_path / "f.txt").read_bytes() == b"caf\xef\xbf\xbd\nLINE 2\n"


def test_edit_line_endings_unified(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_bytes(b"l1\nl2\r\nl3\nl4\n")
    peer.call("edit", tmp_path, file_path="m.txt", old_string="l3", new_string="L3")
    assert (tmp_path / "m.txt").read_bytes() == b"l1\r\nl2\r\nL3\r\nl4\r\n"
    (tmp_path / "r.txt").write_bytes(b"one\rtwo\r")
    peer.call("edit", tmp_path, file_path="r.txt", old_string="one", new_string="1\n2")
    assert (tmp_path / "r.txt").read_bytes() == b"1\n2\rtwo\r"


def test_edit_keeps_final_newline_state(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    peer.call("edit", tmp_path, file_path="a.txt", old_string="x\n", new_string="")
    assert (tmp_path / "a.txt").read_bytes() == b"\n", "the removed final LF is put back"
    (tmp_path / "b.txt").write_text("x")
    peer.call("edit", tmp_path, file_path="b.txt", old_string="x", new_string="y\n")
    assert (tmp_path / "b.txt").read_bytes() == b"y", "the added final LF is taken away"


def test_edit_creates_files(peer: Peer, tmp_path: Path) -> None:
    created = peer.call("edit", tmp_path, file_path="new.txt", old_string="", new_string="hi\n")
    assert not created.is_error and created.text.startswith("Created new file:")
    assert (tmp_path / "new.txt").read_text() == "hi\n"
    again = peer.call("edit", tmp_path, file_path="new.txt", old_string="", new_string="b")
    assert again.is_error
    assert again.text == f"File already exists, cannot create: {tmp_path / 'new.txt'}"


def test_edit_duplicates_without_lines(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\ndup\ny\ndup\ndup\n")
    result = peer.call("edit", tmp_path, file_path="f.txt", old_string="dup", new_string="d")
    assert result.is_error
    assert result.text == (
        "Failed to edit, Expected 1 occurrence but found 3 for old_string in file: f.txt. "
        "If you intended to replace multiple occurrences, set 'allow_multiple' to true."
    )


def test_edit_directory_unnamed(peer: Peer, tmp_path: Path) -> None:
    (tmp_path / "subdir").mkdir()
    result = peer.call("edit", tmp_path, file_path="subdir", old_string="a", new_string="b")
    assert (result.is_error, result.text) == (
        True,
        "EISDIR: illegal operation on a directory, read",
    )


@pytest.mark.kit_long(20)
def test_edit_diff_is_slow(lone_peer: Peer, tmp_path: Path) -> None:
    """The file is written at once; the answer waits for the diff of the old and new text."""
    (tmp_path / "f.txt").write_text("\n" * 20_000)
    started = time.monotonic()
    with pytest.raises(AdapterError, match="no answer"):
        lone_peer.call(
            "edit",
            tmp_path,
            deadline=5,
            file_path="f.txt",
            old_string="\n" * 20_000,
            new_string="-\n\n" * 10_000,
        )
    assert time.monotonic() - started >= 5
    assert (tmp_path / "f.txt").read_text() == "-\n\n" * 10_000, "written before the diff"
