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
