"""Where page k of a file starts, at the cost of its bytes: read's skip to ``offset``.

Lines are split on LF only, and in UTF-8 and latin-1 an LF is the byte 0x0A wherever it is
(no other character holds that byte, invalid bytes included), so the start of line N is found
by counting newlines in raw chunks (``bytes.count``, C speed) instead of decoding and walking
every line before it. Where a page started or ended is remembered per file (its device, inode,
size, mtime and ctime: any change makes a new key), so paging through a file costs each page
its own bytes: page k starts counting at the nearest known line before it. Nothing holds the
file open; a file of another encoding (UTF-16) is walked as before.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections import OrderedDict
from typing import BinaryIO

from pytest_agenttools.implementations.reference import textcodec
from pytest_agenttools.implementations.reference.results import ToolError

SERVICE = "read.checkpoints"
#: codecs in which the byte 0x0A is always, and only, LF
BYTE_NEWLINE_CODECS = ("utf-8", "latin-1")
CHUNK = 256 * 1024
#: files remembered, and line starts remembered per file
MAX_FILES = 64
MAX_MARKS = 4096

Key = tuple[int, int, int, int, int]


class Checkpoints:
    """Known line starts, per unchanged file: ``(lines before, byte position)``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: OrderedDict[Key, tuple[list[int], list[int]]] = OrderedDict()

    def nearest(self, key: Key, lines_before: int) -> tuple[int, int]:
        """The known start closest before line ``lines_before + 1``: (lines before, position)."""
        with self._lock:
            marks = self._files.get(key)
            if marks is None:
                return 0, -1
            self._files.move_to_end(key)
            counts, positions = marks
            at = bisect.bisect_right(counts, lines_before) - 1
            return (counts[at], positions[at]) if at >= 0 else (0, -1)

    def remember(self, key: Key, lines_before: int, position: int) -> None:
        with self._lock:
            marks = self._files.get(key)
            if marks is None:
                marks = self._files[key] = ([], [])
                while len(self._files) > MAX_FILES:
                    self._files.popitem(last=False)
            counts, positions = marks
            at = bisect.bisect_left(counts, lines_before)
            if at < len(counts) and counts[at] == lines_before:
                return
            if len(counts) >= MAX_MARKS:
                return
            counts.insert(at, lines_before)
            positions.insert(at, position)


def checkpoints(services: dict[str, object]) -> Checkpoints:
    found = services.get(SERVICE)
    if not isinstance(found, Checkpoints):
        found = services[SERVICE] = Checkpoints()
    return found


def file_key(stream: BinaryIO) -> Key | None:
    """The identity of the file's current content, or None for a stream without a file."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def skip_to(
    stream: BinaryIO,
    encoding: textcodec.Encoding,
    offset: int,
    cancel: threading.Event,
    marks: Checkpoints | None,
    path: str,
) -> tuple[int, int] | None:
    """The byte position where line ``offset`` starts and the lines before it: ``offset - 1``,
    or fewer when the file ends first (then the position is the end). None when this encoding
    cannot be counted in bytes (the caller walks the lines instead)."""
    if encoding.codec not in BYTE_NEWLINE_CODECS:
        return None
    start = len(encoding.bom)
    need = offset - 1
    key = file_key(stream) if marks is not None else None
    seen, position = 0, start
    if key is not None and marks is not None and need > 0:
        known, at = marks.nearest(key, need)
        if at >= 0:
            seen, position = known, at
    if seen == need:
        return position, seen
    stream.seek(position)
    last = b"\n"
    while seen < need:
        if cancel.is_set():  # a huge offset reads the file: honour cancellation
            raise ToolError("aborted", f"Reading {path} was cancelled.", path=path)
        chunk = stream.read(CHUNK)
        if not chunk:  # the end, before line ``offset``: an unterminated last line counts
            if last != b"\n":
                seen += 1
            return position, seen
        found = chunk.count(b"\n")
        if seen + found < need:
            seen += found
            position += len(chunk)
            last = chunk[-1:]
            continue
        at = -1
        for _ in range(need - seen):
            at = chunk.find(b"\n", at + 1)
        seen = need
        position += at + 1
    if key is not None and marks is not None:
        marks.remember(key, seen, position)
    return position, seen
