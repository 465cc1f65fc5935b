"""Command output: streamed to a file whatever its size, shown to the model as a bounded view.

The pipe is drained into a temp file (``splice`` when the kernel allows, else read/write in 1 MiB
chunks), so memory stays bounded however much a command prints. A view is built from the file:
when a range fits the caps it is shown whole, else its head (45 % of the budget) and its tail,
cut at line ends where possible, with a marker that says how much was left out and where the
full output is. Bytes are decoded as UTF-8 only when the view is built, so a code point split
across reads decodes whole; control characters other than tab, LF and CR are removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import tempfile
import threading
import time
from dataclasses import dataclass

CHUNK = 1 << 20
HEAD_SHARE = 0.45
#: C0 controls except tab, LF, CR; DEL; C1 controls
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
NO_OUTPUT = "(no output)"


def clean_text(data: bytes) -> str:
    """Decode UTF-8 (invalid bytes become U+FFFD) and drop control characters."""
    return CONTROL.sub("", data.decode("utf-8", "replace"))


def _trim_partial_start(data: bytes) -> bytes:
    """Drop UTF-8 continuation bytes at the start of a tail cut inside a code point."""
    index = 0
    while index < min(3, len(data)) and 0x80 <= data[index] < 0xC0:
        index += 1
    return data[index:]


def _trim_partial_end(data: bytes) -> bytes:
    """Drop an incomplete UTF-8 sequence at the end of a head cut inside a code point."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


@dataclass(frozen=True)
class View:
    """What the model sees of a byte range of the output."""

    text: str
    truncated: bool
    total_bytes: int
    omitted_bytes: int


def _read_range(fd: int, start: int, length: int) -> bytes:
    return os.pread(fd, max(0, length), start) if length > 0 else b""


def _lines_from_start(data: bytes, max_lines: int) -> bytes:
    count = 0
    for index, byte in enumerate(data):
        if byte == 10:
            count += 1
            if count == max_lines:
                return data[: index + 1]
    return data


def _lines_from_end(data: bytes, max_lines: int) -> bytes:
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    count = 0
    for index in range(end - 1, -1, -1):
        if data[index] == 10:
            count += 1
            if count == max_lines:
                return data[index + 1 :]
    return data


def build_view(path: str, start: int, end: int, max_bytes: int, max_lines: int) -> View:
    """The bounded view of bytes ``[start, end)`` of the output file."""
    total = max(0, end - start)
    fd = os.open(path, os.O_RDONLY)
    try:
        if total <= max_bytes:
            data = _read_range(fd, start, total)
            if data.count(b"\n") - (1 if data.endswith(b"\n") else 0) < max_lines:
                text = clean_text(data)
                return View(text if text else NO_OUTPUT, False, total, 0)
        head_budget = max(1, int(max_bytes * HEAD_SHARE))
        tail_budget = max(1, max_bytes - head_budget)
        head_lines = max(1, int(max_lines * HEAD_SHARE))
        tail_lines = max(1, max_lines - head_lines)
        head = _lines_from_start(_read_range(fd, start, min(head_budget, total)), head_lines)
        tail_start = max(start + len(head), end - tail_budget)
        tail = _read_range(fd, tail_start, end - tail_start)
    finally:
        os.close(fd)
    if not head.endswith(b"\n") and b"\n" in head:
        head = head[: head.rfind(b"\n") + 1]
    first_break = tail.find(b"\n")
    if tail_start > start + len(head) and -1 < first_break < len(tail) - 1:
        tail = tail[first_break + 1 :]
    tail = _lines_from_end(tail, tail_lines)
    head = _trim_partial_end(head)
    tail = _trim_partial_start(tail)
    omitted = total - len(head) - len(tail)
    marker = (
        "" if head.endswith(b"\n") or not head else "\n"
    ) + f"[... {omitted} bytes omitted ...]\n"
    text = clean_text(head) + marker + clean_text(tail)
    return View(text, True, total, omitted)


class OutputCapture:
    """Drains one pipe into a temp file on a thread; ``size`` is the number of bytes so far."""

    def __init__(self, read_fd: int, directory: str | None = None) -> None:
        handle, self.path = tempfile.mkstemp(
            prefix="agenttools-bash-", suffix=".log", dir=directory
        )
        self._file_fd = handle
        self._pipe = read_fd
        self.size = 0
        self.closed = threading.Event()
        self._drain_until: float | None = None
        self._thread = threading.Thread(target=self._pump, daemon=True, name="agenttools-output")
        self._thread.start()

    def _move(self) -> int:
        """Move what the pipe holds now into the file; 0 at end of file, -1 when empty."""
        try:
            moved = os.splice(self._pipe, self._file_fd, CHUNK, flags=os.SPLICE_F_NONBLOCK)
        except BlockingIOError:
            return -1
        except OSError:
            try:
                data = os.read(self._pipe, CHUNK)
            except BlockingIOError:
                return -1
            moved = len(data)
            view = memoryview(data)
            while view:
                view = view[os.write(self._file_fd, view) :]
        self.size += moved
        return moved

    def _pump(self) -> None:
        os.set_blocking(self._pipe, False)
        try:
            while True:
                ready, _, _ = select.select([self._pipe], [], [], 0.05)
                if ready:
                    moved = self._move()
                    if moved == 0:
                        break
                    if moved > 0 and self._drain_until is None:
                        continue
                if self._drain_until is not None and time.monotonic() > self._drain_until:
                    break
        finally:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            with contextlib.suppress(OSError):
                os.close(self._file_fd)
            self.closed.set()

    def finish(self, linger: float = 0.2) -> None:
        """The command is over: read to end of file, or stop ``linger`` s after the pipe idles.

        A kept-alive background process may hold the pipe open forever; it must not hold the
        call too.
        """
        self._drain_until = time.monotonic() + linger
        self.closed.wait()

    def view(self, start: int, max_bytes: int, max_lines: int, end: int | None = None) -> View:
        return build_view(self.path, start, self.size if end is None else end, max_bytes, max_lines)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
