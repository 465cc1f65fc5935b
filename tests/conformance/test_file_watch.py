"""The suite's watcher of a directory (``watch_new_entries``), with inotify and with the polling it
falls back to: it says when a write began, a temp file created or, with ``or_written``, a file
already there written in place, and it says nothing when nothing happened."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_agenttools.conformance import file_watch


@pytest.fixture(params=["inotify", "polling"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "polling":
        monkeypatch.setattr(file_watch, "_inotify", lambda path, mask: None)
    return str(request.param)


def _later(action: Callable[[], object]) -> Iterator[None]:
    """Run ``action`` on a thread 50 ms from now, while the caller waits for it."""

    def act() -> None:
        time.sleep(0.05)
        action()

    thread = threading.Thread(target=act)
    thread.start()
    yield
    thread.join()


def test_a_new_entry_is_seen(tmp_path: Path, mode: str) -> None:
    with file_watch.watch_new_entries(str(tmp_path)) as appeared:
        for _ in _later(lambda: (tmp_path / ".tmp-1").write_bytes(b"x")):
            assert appeared(10.0)


def test_a_write_in_place_is_seen_only_when_asked_for(tmp_path: Path, mode: str) -> None:
    target = tmp_path / "c.txt"
    target.write_bytes(b"old")
    with file_watch.watch_new_entries(str(tmp_path)) as appeared:
        for _ in _later(lambda: target.write_bytes(b"new, and longer")):
            time.sleep(0.2)
            assert not appeared(0.3), "a write in place is no new entry"
    target.write_bytes(b"old")
    with file_watch.watch_new_entries(str(tmp_path), or_written=True) as began:
        for _ in _later(lambda: target.write_bytes(b"new, and longer")):
            assert began(10.0)


def test_nothing_happening_is_not_seen(tmp_path: Path, mode: str) -> None:
    (tmp_path / "c.txt").write_bytes(b"old")
    with file_watch.watch_new_entries(str(tmp_path), or_written=True) as began:
        (tmp_path / "c.txt").read_bytes()
        assert not began(0.2)


# ---- TornStateWatcher: a write in place is heard even when no look falls inside it

BIG = file_watch.IN_PLACE_MIN + 1


def _blind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every look sees an allowed state: only what inotify queued can tell a tear."""
    monkeypatch.setattr(file_watch.TornStateWatcher, "look", lambda self: None)


def _big_file(tmp_path: Path) -> tuple[Path, bytes, bytes]:
    """c.txt holding an old content, and the new content (its size and first byte its own)."""
    old, new = file_watch.filled(b"o", BIG), file_watch.filled(b"n", 2 * BIG)
    target = tmp_path / "c.txt"
    target.write_bytes(old)
    return target, old, new


def _write_in_place(target: Path, data: bytes) -> None:
    with open(target, "r+b") as handle:  # the same inode, written where it stands
        handle.write(data)


def test_a_write_in_place_is_torn_though_no_look_saw_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _blind(monkeypatch)
    target, old, new = _big_file(tmp_path)
    with file_watch.TornStateWatcher(str(target), [old, new]) as watcher:
        _write_in_place(target, new)
    assert watcher.torn and "written in place" in watcher.torn[0], watcher.report()


def test_a_replacement_by_rename_is_not_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _blind(monkeypatch)
    target, old, new = _big_file(tmp_path)
    with file_watch.TornStateWatcher(str(target), [old, new]) as watcher:
        (tmp_path / ".c.txt.tmp").write_bytes(new)
        (tmp_path / ".c.txt.tmp").replace(target)
        target.chmod(0o600)  # metadata after the rename is no write
    assert not watcher.torn, watcher.report()


@pytest.mark.parametrize(
    "contents",
    [[b"o" * 10, b"n" * 20], [b"o" * BIG, b"o" * (2 * BIG)]],
    ids=["small", "same-first-byte"],
)
def test_writes_in_place_are_judged_by_looks_alone_where_one_call_could_be_atomic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, contents: list[bytes]
) -> None:
    _blind(monkeypatch)
    target = tmp_path / "c.txt"
    target.write_bytes(contents[0])
    with file_watch.TornStateWatcher(str(target), contents) as watcher:
        _write_in_place(target, contents[1])
    assert not watcher.torn, watcher.report()


# --- watch_writes_in_place: which race a test can judge ---------------------------------------


def test_writes_into_a_file_are_heard_through_any_spelling(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dlink").symlink_to("dir")
    target = tmp_path / "dir" / "f.txt"
    with file_watch.watch_writes_in_place(str(target)) as heard:
        assert heard() is False
        (tmp_path / "dlink" / "f.txt").write_bytes(b"created in place through a link")
        assert heard() is True
        assert heard() is True, "once heard, always heard"


def test_a_replacement_by_rename_and_other_names_are_not_heard(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    with file_watch.watch_writes_in_place(str(target)) as heard:
        temp = tmp_path / ".f.txt.tmp"
        temp.write_bytes(b"new" * 100_000)
        temp.replace(target)
        (tmp_path / "f.txt.bak").write_bytes(b"a neighbour")
        assert heard() is False
        with target.open("ab") as handle:  # and the watch still hears a write in place after
            handle.write(b"appended")
        assert heard() is True


def test_without_inotify_a_write_in_place_cannot_be_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_watch, "_inotify", lambda path, mask: None)
    target = tmp_path / "f.txt"
    with file_watch.watch_writes_in_place(str(target)) as heard:
        target.write_bytes(b"in place")
        assert heard() is None
