"""The reference write's own choices, which no conformance clause judges, pinned on purpose.

Conformance judges what every correct write shares. The codes of its errors and the keys of its
details, how much of an old file it reads, when it omits its diff (too large, binary), that a
call's ``env`` supplies ``~``, that an installed port is the one used, and how long the mutation
queue remembers a directory are this reference's choices. A change to any of them should be
deliberate: these tests say so, and they kill the mutants of that policy in the mutation run
(docs/mutation.md). File-system failures a root CI cannot provoke (permission denied, a full
disk) are injected through the write port.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pytest_agenttools.harness.assertions import apply_unified_patch
from pytest_agenttools.implementations.alternatives.presenters.write import KeepsCrlf
from pytest_agenttools.implementations.reference import create, fsport, mutation_queue, write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps
from tests.implementations.reference.test_write import call, dead_writer, text

MIB = 1024 * 1024


class FailingOps(WriteOps):
    """The real port, but one operation raises what a full or read-only disk would."""

    def __init__(self, *, read: Exception | None = None, write: Exception | None = None) -> None:
        self.read_error = read
        self.write_error = write

    def read_head(self, target: str, size: int) -> bytes:
        if self.read_error is not None:
            raise self.read_error
        return super().read_head(target, size)

    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        if self.write_error is not None:
            raise self.write_error
        super().replace(target, data, mode, cancel)


def with_ops(ops: WriteOps, **limits: int) -> ReferenceTools:
    return ReferenceTools(limits or None, ops={"write": ops})


@pytest.mark.parametrize(
    ("ops", "code", "said"),
    [
        (FailingOps(read=PermissionError(13, "Permission denied")), "permission_denied", "open"),
        (FailingOps(write=PermissionError(13, "Permission denied")), "permission_denied", "write"),
        (FailingOps(write=OSError(28, "No space left on device")), "io_error", "No space left"),
        (FailingOps(write=OSError("the disk went away")), "io_error", "the disk went away"),
    ],
    ids=["read-denied", "write-denied", "disk-full", "no-strerror"],
)
def test_port_failure_is_an_error_naming_the_path(
    tmp_path: Path, ops: WriteOps, code: str, said: str
) -> None:
    (tmp_path / "f.txt").write_bytes(b"old\n")
    result = call("write", tmp_path, with_ops(ops), path="f.txt", content="new\n")
    assert result["isError"] and result["details"]["error"] == code, result
    assert str(tmp_path / "f.txt") in text(result) and said in text(result), text(result)
    assert (tmp_path / "f.txt").read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["f.txt"]


class RecordingOps(WriteOps):
    """The real port, remembering how many bytes of the old file write asked for."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def read_head(self, target: str, size: int) -> bytes:
        self.sizes.append(size)
        return super().read_head(target, size)


def test_read_head_returns_at_most_size_bytes(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(b"0123456789")
    assert WriteOps().read_head(str(tmp_path / "f.bin"), 4) == b"0123"


@pytest.mark.parametrize(
    ("old_size", "omitted", "asked"),
    [(99, False, 101), (100, False, 101), (101, True, 4096), (9000, True, 4096)],
)
def test_old_file_over_the_diff_limit_is_read_by_its_head_only(
    tmp_path: Path, old_size: int, omitted: bool, asked: int
) -> None:
    old = b"x" * (old_size - 1) + b"\n"
    (tmp_path / "f.txt").write_bytes(old)
    ops = RecordingOps()
    tools = with_ops(ops, **{"write.diff_max_old_bytes": 100})
    result = call("write", tmp_path, tools, path="f.txt", content="y\n")
    details = result["details"]
    assert not result["isError"] and ops.sizes == [asked], (ops.sizes, details)
    if omitted:
        assert details["diff_omitted"] == "too_large" and "patch" not in details
    else:
        assert "diff_omitted" not in details
        assert apply_unified_patch(old.decode(), details["patch"]) == "y\n"


def test_old_file_larger_than_the_head_is_diffed_whole(tmp_path: Path) -> None:
    old = "".join(f"line {i}\n" for i in range(2000))  # ~17 KB, under the diff limit
    (tmp_path / "f.txt").write_text(old)
    new = old + "last\n"
    result = call("write", tmp_path, path="f.txt", content=new)
    assert apply_unified_patch(old, result["details"]["patch"]) == new
    assert result["details"]["firstChangedLine"] == 2001


@pytest.mark.parametrize(("size", "omitted"), [(100, False), (101, True)])
def test_new_content_over_the_diff_limit_has_no_diff(
    tmp_path: Path, size: int, omitted: bool
) -> None:
    tools = create({"write.diff_max_old_bytes": 100})
    result = call("write", tmp_path, tools, path="f.txt", content="z" * (size - 1) + "\n")
    assert not result["isError"]
    assert ("diff_omitted" in result["details"]) is omitted
    assert (tmp_path / "f.txt").stat().st_size == size


def test_binary_old_file_gets_no_diff(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(b"\x00\x01\x02 not text\n")
    result = call("write", tmp_path, path="f.bin", content="text now\n")
    assert not result["isError"]
    assert result["details"]["diff_omitted"] == "binary" and "patch" not in result["details"]
    assert (tmp_path / "f.bin").read_bytes() == b"text now\n"


def test_utf16_old_file_is_diffed_despite_its_nul_bytes(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"\xff\xfe" + "a\n".encode("utf-16-le"))
    result = call("write", tmp_path, path="f.txt", content="a\nb\n")
    assert "diff_omitted" not in result["details"]
    assert apply_unified_patch("a\n", result["details"]["patch"]) == "a\nb\n"


def test_leading_bom_in_content_is_not_a_change_of_a_bom_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"\xef\xbb\xbfa\n")
    result = call("write", tmp_path, path="f.txt", content="\ufeffa\nb\n")
    assert (tmp_path / "f.txt").read_bytes() == b"\xef\xbb\xbfa\nb\n"
    assert result["details"]["firstChangedLine"] == 2
    assert apply_unified_patch("a\n", result["details"]["patch"]) == "a\nb\n"


def test_long_patch_is_cut_and_says_so(tmp_path: Path) -> None:
    tools = create({"write.patch_max_bytes": 64})
    result = call("write", tmp_path, tools, path="f.txt", content="long line\n" * 50)
    assert result["details"]["patch_truncated"] is True
    assert len(result["details"]["patch"].encode()) <= 64 + 200  # cut near the limit


class CancelAfterWrite(WriteOps):
    """The call is cancelled just after the bytes land: the diff must not be the fine one."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        super().replace(target, data, mode, cancel)
        self.cancel.set()


def test_cancel_after_the_write_gives_a_coarse_diff(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    cancel = threading.Event()
    tools = with_ops(CancelAfterWrite(cancel))
    result = tools.call(
        "write", {"path": "f.txt", "content": "a\nx\nc\n"}, str(tmp_path), None, cancel
    )
    assert not result["isError"] and (tmp_path / "f.txt").read_text() == "a\nx\nc\n"
    assert result["details"]["diff_coarse"] is True
    assert apply_unified_patch("a\nb\nc\n", result["details"]["patch"]) == "a\nx\nc\n"


def test_error_codes_and_the_path_they_name(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "file").write_text("x")
    is_dir = call("write", tmp_path, path="d", content="x")
    assert is_dir["details"] == {"error": "is_directory", "path": str(tmp_path / "d")}
    under_file = call("write", tmp_path, path="file/a/b.txt", content="x")
    assert under_file["details"] == {"error": "not_a_directory", "path": str(tmp_path / "file")}
    assert str(tmp_path / "file") in text(under_file)
    surrogate = call("write", tmp_path, path="s.txt", content="ab\ud800c")
    assert surrogate["details"] == {"error": "invalid_argument"}
    assert "'\\ud800'" in text(surrogate) and "index 2" in text(surrogate), text(surrogate)
    unknown = call("write", tmp_path, path="u.txt", content="x", mode="w")
    assert unknown["details"]["error"] == "invalid_argument"
    assert text(unknown).startswith("write: "), text(unknown)
    assert sorted(os.listdir(tmp_path)) == ["d", "file"]


def test_success_details(tmp_path: Path) -> None:
    result = call("write", tmp_path, path="n.txt", content="a\n")
    details = result["details"]
    assert details["path"] == str(tmp_path / "n.txt") and details["created"] is True
    assert details["bytes_written"] == 2 and details["encoding"] == "utf-8"
    assert details["bom"] is False
    assert details["observation"] == {
        "path": str(tmp_path / "n.txt"),
        "bytes_written": 2,
        "created": True,
        "first_changed_line": 1,
    }


def test_cancelled_before_the_rename_leaves_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"old\n")
    cancel = threading.Event()
    cancel.set()
    tools = create({"write.diff_max_old_bytes": 16})  # no diff to compute: straight to replace
    result = tools.call(
        "write", {"path": "f.txt", "content": "n" * (4 * MIB)}, str(tmp_path), None, cancel
    )
    assert result["isError"] and result["details"]["error"] == "aborted"
    assert os.listdir(tmp_path) == ["f.txt"]
    assert (tmp_path / "f.txt").read_bytes() == b"old\n"


def test_home_comes_from_the_call_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "process-home"))
    home = tmp_path / "call-home"
    result = create().call(
        "write", {"path": "~/h.txt", "content": "x"}, str(tmp_path), {"HOME": str(home)}
    )
    assert not result["isError"], text(result)
    assert (home / "h.txt").read_bytes() == b"x"
    assert not (tmp_path / "process-home").exists()


def test_installed_port_is_used(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"x\r\ny\r\n")
    tools = with_ops(KeepsCrlf())
    assert not call("write", tmp_path, tools, path="crlf.txt", content="a\nb\n")["isError"]
    assert (tmp_path / "crlf.txt").read_bytes() == b"a\r\nb\r\n"


def test_run_without_a_port_uses_the_real_one(tmp_path: Path) -> None:
    ctx = CallContext(cwd=str(tmp_path), limits=Limits(None), queue=MutationQueue())
    result = write.run({"path": "p.txt", "content": "x"}, ctx)
    assert result["details"]["bytes_written"] == 1
    assert (tmp_path / "p.txt").read_bytes() == b"x"


# --- the queue's memory of directories ------------------------------------------------------------


def test_queue_sweeps_a_directory_once(tmp_path: Path) -> None:
    pid, start = dead_writer()
    first = tmp_path / f".z.agenttools-{pid}-{start}-0000aaaa.tmp"
    first.write_bytes(b"left before this session")
    queue = MutationQueue()
    with queue.hold(str(tmp_path / "a")):
        assert not first.exists(), "the first write into the directory sweeps it"
    stale = tmp_path / f".a.agenttools-{pid}-{start}-00ff00ff.tmp"
    stale.write_bytes(b"left by a killed write")
    with queue.hold(str(tmp_path / "b")):
        assert stale.exists(), "a directory already swept is not listed again on every write"
    assert queue.close() == 1 and not stale.exists()


def test_queue_forgets_the_oldest_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mutation_queue, "MAX_DIRECTORIES", 2)
    queue = MutationQueue()
    dirs = [tmp_path / name for name in ("d1", "d2", "d3")]
    temps = []
    for directory in dirs:
        directory.mkdir()
        with queue.hold(str(directory / "f")):
            temp = Path(fsport.temp_path(str(directory / "f")))
            temp.write_bytes(b"x")
            temps.append(temp)
    with queue.hold(str(dirs[1] / "g")):  # touched again: now the newest
        pass
    assert queue.close() == 2
    assert [t.exists() for t in temps] == [True, False, False]
