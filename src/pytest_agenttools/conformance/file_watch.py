"""Watching files while an implementation works on them, so races fail on every run.

A test that only looks at the result after the fact passes a non-atomic or unlocked
implementation whenever the scheduler happens to be kind. These helpers look while the work
runs:

- ``TornStateWatcher`` reads the target continuously from its own thread and records every
  state that is none of the allowed contents (empty, truncated, mixed, missing); on Linux it
  also hears, through inotify, every write into the file in place, which the kernel queues
  even when the reading thread was not scheduled in time;
- ``watch_opens(path)`` and ``watch_new_entries(directory)`` say when the implementation has
  opened a file or created an entry in a directory (inotify on Linux, polling elsewhere), so a
  second call is sent exactly while the first is in the middle of its work;
- ``watch_writes_in_place(path)`` says whether anything wrote into the file itself rather than
  replacing it: a race between writes in place is decided by timing, so a test whose verdict
  would depend on it is blocked by the atomicity clause instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

IN_MODIFY = 0x2
IN_OPEN = 0x20
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_Q_OVERFLOW = 0x4000
_EVENT = struct.Struct("iIII")
SAMPLES = 9
POLL_PAUSE_S = 0.0002
#: contents this large are never turned one into another by a single system call (64 KiB)
IN_PLACE_MIN = 64 * 1024


def filled(byte: bytes, size: int) -> bytes:
    """A content every sample of which tells which content it is: one byte value, one size."""
    return byte * size


@dataclass
class TornStateWatcher:
    """Read ``path`` over and over; any state that is not exactly one of ``allowed`` is torn.

    Each look opens the file, takes its size from the open descriptor and compares bytes at
    ``SAMPLES`` spread positions (first and last included) with the allowed content of that
    size, so one look costs microseconds however large the file; every 64th look compares the
    whole content. ``allow_missing`` accepts a file that does not exist (before a create).
    Allowed contents must differ in size.

    Looking can miss: a busy machine may not run this thread during a write in place that
    takes a few milliseconds (pi's write once passed WRITE-CANCEL-01 so). When every allowed
    content is larger than ``IN_PLACE_MIN`` and each starts with its own byte, no single
    system call turns one into another, so a write into the file itself (inotify's
    IN_MODIFY on its name, queued by the kernel until read) leaves a state in between that a
    reader can see: it is recorded as torn, every run. A replacement by rename writes only
    to another name and is never heard.
    """

    path: str
    allowed: Sequence[bytes]
    allow_missing: bool = False
    looks: int = 0
    torn: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _writes: _WritesInPlace | None = None

    def __post_init__(self) -> None:
        self._by_size = {len(c): c for c in self.allowed}
        if len(self._by_size) != len(self.allowed):
            raise ValueError("allowed contents must differ in size")

    def __enter__(self) -> TornStateWatcher:
        if all(len(c) > IN_PLACE_MIN for c in self.allowed) and len(
            {c[:1] for c in self.allowed}
        ) == len(self.allowed):
            self._writes = _WritesInPlace(self.path)
        self._thread = threading.Thread(target=self._run, name="torn-state-watcher", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
        if self._writes is not None:
            self._hear_writes()  # what the kernel queued while the thread was not looking
            self._writes.close()
            self._writes = None

    def _run(self) -> None:
        while not self._stop.is_set():
            problem = self.look()
            self.looks += 1
            self._record(problem)
            self._hear_writes()
            time.sleep(POLL_PAUSE_S)

    def _record(self, problem: str | None) -> None:
        if problem and len(self.torn) < 20:
            self.torn.append(problem)

    def _hear_writes(self) -> None:
        if self._writes is not None and self._writes.since_last():
            self._record(
                f"{os.path.basename(self.path)} was written in place (inotify IN_MODIFY on it): "
                "between its system calls a reader sees neither the old content nor the new"
            )

    def look(self) -> str | None:
        """One look: None when the file is in an allowed state, else what was wrong."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None if self.allow_missing else "the file did not exist"
        try:
            size = os.fstat(fd).st_size
            expected = self._by_size.get(size)
            if expected is None:
                sizes = ", ".join(str(s) for s in sorted(self._by_size))
                return f"size {size}, which is none of the contents' sizes ({sizes})"
            if size and self.looks % 64 == 63:
                whole = _read_all(fd, size)
                if whole != expected:
                    return f"a {size}-byte file that is not the content of that size"
            for position in _positions(size):
                got = os.pread(fd, 1, position)
                if got != expected[position : position + 1]:
                    return (
                        f"size {size} but byte {position} is {got!r}, not "
                        f"{expected[position : position + 1]!r} (a mix of contents)"
                    )
            return None
        finally:
            os.close(fd)

    def report(self) -> str:
        return f"{len(self.torn)} torn state(s) in {self.looks} looks: " + "; ".join(self.torn[:5])


def _positions(size: int) -> list[int]:
    if size == 0:
        return []
    return sorted({size * i // (SAMPLES - 1) for i in range(SAMPLES - 1)} | {size - 1})


def _read_all(fd: int, size: int) -> bytes:
    parts: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)


class _Inotify:
    """The few inotify calls the suite needs, through ctypes (Linux only)."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self._add = libc.inotify_add_watch
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")

    def add(self, path: str, mask: int) -> None:
        if self._add(self.fd, os.fsencode(path), mask) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch({path!r}) failed")

    def names(self, mask: int) -> list[str]:
        """The names of the queued events that match ``mask``, without waiting."""
        found: list[str] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return found
            found += [name for event_mask, name in _events(data) if event_mask & mask]

    def wait(self, mask: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return False
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                continue
            if any(event_mask & mask for event_mask, _ in _events(data)):
                return True
        return False

    def close(self) -> None:
        os.close(self.fd)


def _events(data: bytes) -> Iterator[tuple[int, str]]:
    """The (mask, name) of each inotify event in ``data``, as ``read`` returned it."""
    offset = 0
    while offset + _EVENT.size <= len(data):
        _, event_mask, _, length = _EVENT.unpack_from(data, offset)
        start = offset + _EVENT.size
        offset = start + length
        yield event_mask, os.fsdecode(data[start:offset].rstrip(b"\0"))


def _inotify(path: str, mask: int) -> _Inotify | None:
    try:
        watcher = _Inotify()
    except (OSError, AttributeError):
        return None
    try:
        watcher.add(path, mask)
    except OSError:
        watcher.close()
        return None
    return watcher


@contextlib.contextmanager
def watch_opens(path: str) -> Iterator[Callable[[float], bool]]:
    """Yield ``wait(timeout) -> bool``: true once some process has opened ``path`` (after the
    watch began). Without inotify, ``wait`` pauses briefly and returns False."""
    watcher = _inotify(path, IN_OPEN)
    if watcher is None:

        def pause(timeout: float) -> bool:
            time.sleep(min(timeout, 0.05))
            return False

        yield pause
        return
    try:
        yield lambda timeout: watcher.wait(IN_OPEN, timeout)
    finally:
        watcher.close()


@contextlib.contextmanager
def watch_new_entries(
    directory: str, *, or_written: bool = False
) -> Iterator[Callable[[float], bool]]:
    """Yield ``wait(timeout) -> bool``: true once a new entry (a temp file, the target) has
    appeared in ``directory`` after the watch began; with ``or_written``, also once an entry
    already there was written to (a write in place has begun: there is nothing to wait for)."""
    mask = IN_CREATE | IN_MOVED_TO | (IN_MODIFY if or_written else 0)
    watcher = _inotify(directory, mask)
    if watcher is not None:
        try:
            yield lambda timeout: watcher.wait(mask, timeout)
        finally:
            watcher.close()
        return

    def look() -> dict[str, tuple[int, int]]:
        seen: dict[str, tuple[int, int]] = {}
        for entry in os.scandir(directory):
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                seen[entry.name] = (info.st_size, info.st_mtime_ns) if or_written else (0, 0)
        return seen

    before = look()

    def poll(timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = look()
            if set(now) - set(before) or any(now[k] != before[k] for k in now.keys() & before):
                return True
            time.sleep(0.0005)
        return False

    yield poll


class _WritesInPlace:
    """Hears writes into ``path`` itself: inotify's IN_MODIFY on its name in its directory,
    whichever spelling reached it. Consecutive writes into one name are merged by the kernel
    into one event, so even a large write in place queues only a few; a replacement by rename
    writes only to another name."""

    def __init__(self, path: str) -> None:
        self._name = os.path.basename(path)
        self._watcher = _inotify(os.path.dirname(path) or ".", IN_MODIFY)
        #: a write in place was heard at some point; the kernel's queue overflowed at some point
        self.ever = False
        self.overflowed = False

    def since_last(self) -> bool:
        """Whether a write into the file was heard since the last time this was asked."""
        if self._watcher is None:
            return False
        names = self._watcher.names(IN_MODIFY | IN_Q_OVERFLOW)
        self.overflowed = self.overflowed or "" in names
        now = self._name in names
        self.ever = self.ever or now
        return now

    def heard(self) -> bool | None:
        """Whether a write into the file was heard since the watch began; None where that
        cannot be told (no inotify, or the queue overflowed before one was heard)."""
        self.since_last()
        if self.ever:
            return True
        return None if self._watcher is None or self.overflowed else False

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None


@contextlib.contextmanager
def watch_writes_in_place(path: str) -> Iterator[Callable[[], bool | None]]:
    """Yield ``heard() -> bool | None``: whether some process has written into ``path`` itself
    since the watch began; None where that cannot be told (no inotify, or the kernel's queue
    overflowed)."""
    writes = _WritesInPlace(path)
    try:
        yield writes.heard
    finally:
        writes.close()
