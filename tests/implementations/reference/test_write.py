"""The reference's write, its paths and its mutation queue, on the real file system.

Path resolution against the kernel (for every tool that expands paths), temp files of killed
writers swept on the next touch and at shutdown (including a real SIGKILL of `agenttools serve`
during a large write), cancellation, large contents without a diff, and the observation.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.harness.assertions import apply_unified_patch
from pytest_agenttools.implementations.alternatives.presenters.write import KeepsCrlf
from pytest_agenttools.implementations.reference import create, fsport, paths
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from tests.support import run_agenttools

MIB = 1024 * 1024


def call(tool: str, cwd: Path, tools: ReferenceTools | None = None, **arguments: Any) -> Any:
    return (tools or create()).call(tool, arguments, str(cwd))


def text(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


# --- paths: `..` as the kernel resolves it -----------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """tmp/real/sub (a directory) and tmp/link -> real/sub."""
    (tmp_path / "real" / "sub").mkdir(parents=True)
    os.symlink("real/sub", tmp_path / "link")
    return tmp_path


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("link/../x", "real/x"),
        ("link/./../x", "real/x"),
        ("link/sub2/../x", "link/x"),  # sub2 does not exist: lexical, as mkdir -p then kernel
        ("real/sub/../x", "real/x"),
        ("a//b/./c", "a/b/c"),
        ("missing/../x", "x"),
        ("link", "link"),  # a link stays spelled as a link
    ],
)
def test_expand_agrees_with_the_kernel(linked: Path, raw: str, expected: str) -> None:
    assert paths.expand(raw, str(linked)) == str(linked / expected)


def test_expand_outside_the_cwd_and_home(linked: Path) -> None:
    assert paths.expand("..", str(linked)) == str(linked.parent)
    assert paths.expand("~/x", str(linked), {"HOME": str(linked / "link")}) == str(
        linked / "link" / "x"
    )
    assert paths.expand("~/../x", str(linked), {"HOME": str(linked / "link")}) == str(
        linked / "real" / "x"
    )


def test_every_tool_resolves_dotdot_through_the_link(linked: Path) -> None:
    tools = create()
    assert not call("write", linked, tools, path="link/../w.txt", content="one\n")["isError"]
    assert (linked / "real" / "w.txt").read_bytes() == b"one\n"
    with open(os.path.join(linked, "link/../w.txt"), "rb") as kernel:
        assert kernel.read() == b"one\n"
    read = call("read", linked, tools, path="link/../w.txt")
    assert not read["isError"] and "one" in text(read)
    edited = call(
        "edit", linked, tools, file_path="link/../w.txt", old_string="one", new_string="two"
    )
    assert not edited["isError"], text(edited)
    assert (linked / "real" / "w.txt").read_bytes() == b"two\n"
    assert not (linked / "w.txt").exists()
    (linked / "decoy.txt").write_text("two\n")  # where a lexical `link/..` would look
    found = call("grep", linked, tools, pattern="two", path="link/..")
    assert not found["isError"], text(found)
    assert "w.txt" in text(found) and "decoy" not in text(found), text(found)


SURROGATE_CALLS = {
    "write": {"path": "a\ud800.txt", "content": "x"},
    "read": {"path": "a\ud800.txt"},
    "edit": {"file_path": "a\ud800.txt", "old_string": "x", "new_string": "y"},
}


@pytest.mark.parametrize("tool", sorted(SURROGATE_CALLS))
def test_surrogate_in_a_path_is_a_clear_error(tmp_path: Path, tool: str) -> None:
    result = create().call(tool, SURROGATE_CALLS[tool], str(tmp_path))
    assert result["isError"] and result["details"]["error"] == "invalid_argument", result
    assert "surrogate" in text(result) and "Internal error" not in text(result)
    assert os.listdir(tmp_path) == []


# --- temp files: named after their writer, swept when it is dead -------------------------------


def dead_writer() -> tuple[int, int]:
    """The pid and start time of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        start = fsport._start_ticks(child.pid)
        assert start is not None
    finally:
        child.kill()
        child.wait()
    return child.pid, start


def test_temp_name_carries_the_writer(tmp_path: Path) -> None:
    temp = Path(fsport.temp_path(str(tmp_path / "f.txt")))
    found = fsport.TEMP_NAME.match(temp.name)
    assert found and temp.parent == tmp_path and temp.name.startswith(".f.txt.")
    assert int(found["pid"]) == os.getpid()
    assert fsport.writer_alive(int(found["pid"]), int(found["start"]))


def test_sweep_removes_only_dead_writers_temp_files(tmp_path: Path) -> None:
    pid, start = dead_writer()
    dead = tmp_path / f".f.txt.agenttools-{pid}-{start}-0a1b2c3d.tmp"
    reused = tmp_path / f".g.txt.agenttools-{os.getpid()}-1-0a1b2c3d.tmp"  # pid reused
    mine = Path(fsport.temp_path(str(tmp_path / "h.txt")))
    lookalike = tmp_path / ".f.txt.tmp"
    for path in (dead, reused, mine, lookalike, tmp_path / "f.txt"):
        path.write_bytes(b"x")
    assert fsport.sweep_stale_temps(str(tmp_path)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, ".f.txt.tmp", "f.txt"])
    assert fsport.sweep_stale_temps(str(tmp_path), own=True) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".f.txt.tmp", "f.txt"]
    assert fsport.sweep_stale_temps(str(tmp_path / "missing")) == 0


def test_queue_sweeps_on_first_touch_and_at_close(tmp_path: Path) -> None:
    pid, start = dead_writer()
    stale = tmp_path / f".a.agenttools-{pid}-{start}-00ff00ff.tmp"
    stale.write_bytes(b"left by a killed write")
    queue = MutationQueue()
    with queue.hold(str(tmp_path / "a")):
        assert not stale.exists(), "the first touch of the directory sweeps it"
        mine = Path(fsport.temp_path(str(tmp_path / "a")))
        mine.write_bytes(b"in flight")
    with queue.hold(str(tmp_path / "b")):
        assert mine.exists(), "a live writer's temp file is never swept"
    assert len(queue) == 0
    assert queue.close() == 1 and not mine.exists()


def test_failed_replace_leaves_no_temp_and_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f.txt").write_bytes(b"old\n")

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    result = call("write", tmp_path, path="f.txt", content="new\n")
    assert result["isError"] and "No space left" in text(result)
    assert sorted(os.listdir(tmp_path)) == ["f.txt"]
    assert (tmp_path / "f.txt").read_bytes() == b"old\n"


def test_cancel_between_chunks_leaves_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"old\n")
    cancel = threading.Event()
    cancel.set()
    result = create().call(
        "write", {"path": "f.txt", "content": "n" * (4 * MIB)}, str(tmp_path), None, cancel
    )
    assert result["isError"] and result["details"]["error"] == "aborted"
    assert sorted(os.listdir(tmp_path)) == ["f.txt"]
    assert (tmp_path / "f.txt").read_bytes() == b"old\n"


# --- a SIGKILL of the server during a large write ------------------------------------------------


class Server:
    """`agenttools serve` driven line by line, as the stdio adapter does."""

    def __init__(self) -> None:
        exe = os.path.join(os.path.dirname(sys.executable), "agenttools")
        self.proc = subprocess.Popen(
            [exe, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any]) -> int:
        assert self.proc.stdin is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return self.next_id

    def answer(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.send("shutdown", {})
            self.proc.wait(30)


def test_killed_write_leaves_old_file_and_next_start_sweeps(tmp_path: Path) -> None:
    old = b"o" * (MIB + 3)
    new = "n" * (48 * MIB)  # under the server's 64 MiB request line cap
    (tmp_path / "big.txt").write_bytes(old)
    server = Server()
    try:
        server.send("initialize", {"protocol": "agenttools/2"})
        server.answer()
        server.send(
            "call",
            {
                "tool": "write",
                "arguments": {"path": "big.txt", "content": new},
                "cwd": str(tmp_path),
            },
        )
        deadline = time.monotonic() + 60
        temps: list[str] = []
        while not temps and time.monotonic() < deadline:
            temps = [n for n in os.listdir(tmp_path) if fsport.TEMP_NAME.match(n)]
            time.sleep(0.001)
        assert temps, "the server never started writing its temp file"
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(30)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    assert server.proc.returncode == -signal.SIGKILL
    assert (tmp_path / "big.txt").read_bytes() in (old, new.encode()), "the file is torn"
    left = [n for n in os.listdir(tmp_path) if fsport.TEMP_NAME.match(n)]
    assert left, "a write killed before its rename leaves its temp file (until the sweep)"

    again = Server()
    try:
        again.send("initialize", {"protocol": "agenttools/2"})
        again.answer()
        again.send(
            "call",
            {
                "tool": "write",
                "arguments": {"path": "next.txt", "content": "x"},
                "cwd": str(tmp_path),
            },
        )
        assert again.answer()["result"]["isError"] is False
    finally:
        again.close()
    assert sorted(os.listdir(tmp_path)) == ["big.txt", "next.txt"], "the temp file survived"


# --- the display diff is bounded ----------------------------------------------------------------


def test_repeated_lines_get_a_coarse_patch_that_applies(tmp_path: Path) -> None:
    """20,000 blank lines made the fine diff quadratic; the bounded diff answers with one
    coarse hunk (diffing's budget), still a patch that turns the old text into the new."""
    old = "\n" * 20_000
    (tmp_path / "blank.txt").write_text(old)
    content = "\n" * 10_000 + "changed\n" + "\n" * 9_999
    result = call("write", tmp_path, path="blank.txt", content=content)
    details = result["details"]
    assert not result["isError"] and "diff_omitted" not in details
    assert apply_unified_patch(old, details["patch"]) == content
    assert details["observation"]["first_changed_line"] == 10_001
    assert (tmp_path / "blank.txt").read_text() == content


def test_large_new_content_carries_no_diff(tmp_path: Path) -> None:
    result = call("write", tmp_path, path="n.txt", content="line\n" * 300_000)
    assert result["details"]["diff_omitted"] == "too_large"
    assert result["details"]["observation"]["bytes_written"] == 1_500_000


def test_ordinary_rewrite_keeps_its_patch(tmp_path: Path) -> None:
    lines = [f"def f{i}():\n    return {i}\n\n" for i in range(1000)]
    (tmp_path / "f.txt").write_text("".join(lines))
    lines[500] = "def changed():\n    return 0\n\n"
    result = call("write", tmp_path, path="f.txt", content="".join(lines))
    assert "diff_omitted" not in result["details"] and result["details"]["patch"]
    assert result["details"]["observation"]["first_changed_line"] == 1501


# --- the observation ------------------------------------------------------------------------------


def test_observation_of_create_and_overwrite(tmp_path: Path) -> None:
    tools = create()
    first = call("write", tmp_path, tools, path="d/o.txt", content="one\ntwo\n")
    assert first["details"]["observation"] == {
        "path": str(tmp_path / "d" / "o.txt"),
        "bytes_written": 8,
        "created": True,
        "first_changed_line": 1,
    }
    (tmp_path / "d" / "o.txt").write_bytes(b"\xef\xbb\xbfone\ntwo\n")
    second = call("write", tmp_path, tools, path="d/o.txt", content="one\n2\n")
    assert second["details"]["observation"] == {
        "path": str(tmp_path / "d" / "o.txt"),
        "bytes_written": 9,
        "created": False,
        "first_changed_line": 2,
    }


# --- the alternative that keeps CRLF --------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "content", "stored"),
    [
        (None, "a\nb\n", "a\nb\n"),
        (b"x\ny\r\n", "a\nb\n", "a\nb\n"),
        (b"x\r\ny\n", "a\nb\r\nc\rd\n", "a\r\nb\r\nc\rd\r\n"),
        (b"\xff\xfe" + "x\r\n".encode("utf-16-le"), "a\n", "a\r\n"),
        (b"\xff\xfe" + "x\n".encode("utf-16-le"), "a\n", "a\n"),
    ],
    ids=["new", "lf-file", "crlf-file", "utf16-crlf", "utf16-lf"],
)
def test_keeps_crlf_port(head: bytes | None, content: str, stored: str) -> None:
    assert KeepsCrlf().store_text(content, head) == stored


# --- a clause that needs a second tool ------------------------------------------------------------


def test_clause_needing_edit_is_not_run_without_edit(tmp_path: Path) -> None:
    """WRITE-QUEUE-02 races write with edit: an implementation without edit does not run it
    (reported as not run, never as failed or passed)."""
    (tmp_path / "m.toml").write_text('tools = ["read", "write"]\n')
    done = run_agenttools(
        "run",
        "--tools",
        "write",
        "--manifest",
        "m.toml",
        "--report-json",
        "r.json",
        "--",
        "-k",
        "share_a_queue",
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["clauses"] == {"WRITE-QUEUE-02": "skipped"}
    assert "not run" in done.stdout


def test_writing_through_a_symlink_loop_is_refused_and_the_link_stays(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    result = call("write", tmp_path, path="a", content="x\n")
    assert result["isError"] and result["details"]["error"] == "symlink_loop", result
    assert "loop" in text(result) and "left as it is" in text(result)
    assert os.path.islink(tmp_path / "a") and os.readlink(tmp_path / "a") == "b"
    assert os.path.islink(tmp_path / "b") and os.readlink(tmp_path / "b") == "a"
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_a_dangling_link_is_still_written_through(tmp_path: Path) -> None:
    os.symlink("target.txt", tmp_path / "link")
    result = call("write", tmp_path, path="link", content="x\n")
    assert not result["isError"], result
    assert os.path.islink(tmp_path / "link") and (tmp_path / "target.txt").read_text() == "x\n"
