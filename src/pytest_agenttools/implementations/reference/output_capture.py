"""Command output: streamed to a bounded file whatever its size, shown as a bounded view.

The pipe is drained into a temp file (``splice`` when the kernel allows, else read/write in 1 MiB
chunks), so memory stays bounded however much a command prints. The file is bounded too
(BASH-OUT-08): once the output passes ``file_max_bytes`` the file keeps the first half of that
budget, a fixed-width note saying how much was left out, and a sliding window of the latest
output, compacted in place as the command prints on; after the command ends it is at most the
budget. While a command runs the file may briefly hold one more window (1.5 times the budget).

A view is built from the file: when a byte range fits the caps it is shown whole, else its head
(45 % of the budget) and its tail, cut at line ends where possible, with a marker between them
(BASH-OUT-06). The caps count the shown text in the limit's unit (UTF-8 bytes or characters).
Bytes are decoded as UTF-8 only when the view is built, so a code point split across reads
decodes whole; control characters other than tab, LF and CR are removed (BASH-OUT-04).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_agenttools.implementations.reference import fsport

CHUNK = 1 << 20
HEAD_SHARE = 0.45
#: C0 controls except tab, LF, CR; DEL; C1 controls
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
NO_OUTPUT = "(no output)"
#: bytes reserved in a compacted output file for the note that says what was left out
NOTE_BYTES = 160
#: a UTF-8 character is at most this many bytes: raw windows are sized from a budget with it
MAX_CHAR_BYTES = 4


def clean_text(data: bytes) -> str:
    """Decode UTF-8 (invalid bytes become U+FFFD) and drop control characters."""
    return CONTROL.sub("", data.decode("utf-8", "replace"))


def measure_in(unit: str) -> Callable[[str], int]:
    """How a shown text is sized under a limit's unit: UTF-8 bytes or characters."""
    if unit == "chars":
        return len
    return lambda text: len(text.encode("utf-8"))


def count_lines(text: str) -> int:
    """Lines of shown text: every LF ends one, and a last line without LF counts too."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


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
    """What the model sees of a byte range of the output.

    ``head`` and ``tail`` are the shown parts of the output (the whole text when not cut: then
    ``tail`` is empty); ``text`` is what the result shows, the marker included.
    """

    text: str
    truncated: bool
    total_bytes: int
    omitted_bytes: int
    head: str = ""
    tail: str = ""
    # the account of the cut (BASH-OUT-09), left out of comparisons: a view is its text
    #: lines of the whole range (None: not known, the file dropped part of it)
    total_lines: int | None = field(default=0, compare=False)
    #: the cap that cut the view: "bytes" (the size cap, in its unit) or "lines"; None: not cut
    cut_by: str | None = field(default=None, compare=False)
    #: the tail starts inside a line: only the end of that line is shown
    tail_partial: bool = field(default=False, compare=False)

    @property
    def shown_lines(self) -> int:
        """Lines of the shown output: head and tail counted apart when cut."""
        if self.truncated:
            return count_lines(self.head) + count_lines(self.tail)
        return count_lines(self.text)


Reader = Callable[[int, int], bytes]


def _pieces(data: bytes) -> list[bytes]:
    """``data`` split after every LF (the last piece may lack one)."""
    return [p for p in re.split(b"(?<=\n)", data) if p]


def _fit_prefix(raw: bytes, budget: int, max_lines: int, measure: Callable[[str], int]) -> bytes:
    """The longest prefix of ``raw`` in whole lines within the budget; a part of the first line
    when not even that fits."""
    raw = _trim_partial_end(raw)
    kept: list[bytes] = []
    used = 0
    for piece in _pieces(raw):
        size = measure(clean_text(piece))
        if used + size > budget or len(kept) >= max_lines or not piece.endswith(b"\n"):
            break
        kept.append(piece)
        used += size
    if kept:
        return b"".join(kept)
    first = _pieces(raw)[0] if raw else b""
    return _longest(first, budget, measure, from_end=False)


def _fit_suffix(
    raw: bytes,
    budget: int,
    max_lines: int,
    measure: Callable[[str], int],
    at_line_start: bool,
) -> bytes:
    """The longest suffix of ``raw`` in whole lines within the budget (the first piece counts
    as a whole line only when ``raw`` starts at one); a part of the last line when not even
    that fits."""
    trimmed = _trim_partial_start(raw)
    at_line_start = at_line_start and len(trimmed) == len(raw)
    pieces = _pieces(trimmed)
    kept: list[bytes] = []
    used = 0
    for index in range(len(pieces) - 1, -1, -1):
        piece = pieces[index]
        if index == 0 and not at_line_start:
            break
        size = measure(clean_text(piece))
        if used + size > budget or len(kept) >= max_lines:
            break
        kept.append(piece)
        used += size
    if kept:
        return b"".join(reversed(kept))
    last = pieces[-1] if pieces else b""
    return _longest(last, budget, measure, from_end=True)


def _longest(line: bytes, budget: int, measure: Callable[[str], int], *, from_end: bool) -> bytes:
    """The longest start (or end) of one line whose shown text fits ``budget``."""

    def cut(n: int) -> bytes:
        return (
            _trim_partial_start(line[len(line) - n :]) if from_end else _trim_partial_end(line[:n])
        )

    low, high = 0, len(line)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(clean_text(cut(middle))) <= budget:
            low = middle
        else:
            high = middle - 1
    return cut(low)


def range_lines(read: Reader, start: int, end: int, available_from: int | None) -> int | None:
    """Lines of output bytes ``[start, end)``, counted in 1 MiB steps; None when the file no
    longer holds all of them."""
    if available_from is not None and start < available_from:
        return None
    count, last, offset = 0, b"", start
    while offset < end:
        data = read(offset, min(CHUNK, end - offset))
        if not data:
            return None
        count += data.count(b"\n")
        last = data[-1:]
        offset += len(data)
    return count + (1 if end > start and last != b"\n" else 0)


def build_view(
    read: Reader,
    start: int,
    end: int,
    max_size: int,
    max_lines: int,
    unit: str = "bytes",
    available_from: int | None = None,
) -> View:
    """The bounded view of output bytes ``[start, end)`` (BASH-OUT-06).

    ``read(offset, length)`` returns the stored bytes from ``offset`` (fewer where the file
    no longer holds them); ``available_from`` is where the stored tail window starts when the
    middle of the output was dropped from the file.
    """
    total = max(0, end - start)
    if total == 0:  # nothing new: the file is not touched (it may be gone)
        return View("", False, 0, 0)
    measure = measure_in(unit)
    max_size, max_lines = max(1, int(max_size)), max(1, int(max_lines))
    lines = range_lines(read, start, end, available_from)
    over_size = True
    if total <= max_size * MAX_CHAR_BYTES + MAX_CHAR_BYTES:
        data = read(start, total)
        if len(data) == total:
            text = clean_text(data)
            over_size = measure(text) > max_size
            if not over_size and count_lines(text) <= max_lines:
                return View(text, False, total, 0, text, "", count_lines(text))
    cut_by = "bytes" if over_size or lines is None or lines <= max_lines else "lines"
    head_budget = int(max_size * HEAD_SHARE)
    head_lines = int(max_lines * HEAD_SHARE)
    head = b""
    if head_budget > 0 and head_lines > 0:
        window = min(total, head_budget * MAX_CHAR_BYTES + MAX_CHAR_BYTES)
        head = _fit_prefix(read(start, window), head_budget, head_lines, measure)
    tail_budget, tail_lines = max_size - head_budget, max_lines - head_lines
    head_end = start + len(head)
    tail_start = max(head_end, end - tail_budget * MAX_CHAR_BYTES - MAX_CHAR_BYTES)
    if available_from is not None and tail_start < available_from:
        tail_start = min(end, available_from)
    raw_tail = read(tail_start, end - tail_start)
    at_line_start = tail_start == start or read(tail_start - 1, 1) == b"\n"
    tail = _fit_suffix(raw_tail, tail_budget, tail_lines, measure, at_line_start)
    omitted = total - len(head) - len(tail)
    head_text, tail_text = clean_text(head), clean_text(tail)
    if omitted <= 0:
        text = head_text + tail_text
        return View(text, False, total, 0, text, "", lines)
    marker = ("" if not head_text or head_text.endswith("\n") else "\n") + (
        f"[... {omitted} bytes omitted ...]\n"
    )
    tail_at = end - len(tail)
    partial = tail_at > start and read(tail_at - 1, 1) != b"\n"
    return View(
        head_text + marker + tail_text,
        True,
        total,
        omitted,
        head_text,
        tail_text,
        lines,
        cut_by,
        partial,
    )


#: the pipe size asked for (the kernel's default is 64 KiB): fewer, larger steps per megabyte
PIPE_BYTES = 1 << 20
#: a step that moved less than this found a producer slower than the drain ...
SMALL_STEP = 256 << 10
#: ... so the pump waits this long for the pipe to fill before the next step: a fast producer
#: writing 8 KiB at a time otherwise costs one Python step per write (1 GiB: ~120,000 steps)
FILL_WAIT_S = 0.001


def _widen(fd: int) -> None:
    """Grow the pipe to PIPE_BYTES where the kernel allows it; silently keep it otherwise."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, setter, PIPE_BYTES)


class OutputCapture:
    """Drains one pipe into a bounded temp file on a thread (BASH-OUT-07: the exact bytes while
    they fit the file's budget).

    ``size`` is the number of bytes the command printed so far; ``file_truncated`` says the
    file no longer holds all of them (it keeps the head and the latest window).
    """

    def __init__(
        self, read_fd: int, *, file_max_bytes: int = 64 << 20, directory: str | None = None
    ) -> None:
        handle, self.path = tempfile.mkstemp(
            prefix=fsport.owned_prefix("bash"), suffix=".log", dir=directory
        )
        self._file_fd = handle
        self._pipe = read_fd
        _widen(read_fd)
        self.size = 0
        self.closed = threading.Event()
        self._drain_until: float | None = None
        self._lock = threading.Lock()
        budget = max(4 * NOTE_BYTES, int(file_max_bytes))
        self._note = NOTE_BYTES
        self._head = budget // 2
        self._window = budget - self._head - self._note
        self._file_len = 0
        #: stream offset of the first byte of the window (None: the file holds everything)
        self._window_start: int | None = None
        self._thread = threading.Thread(target=self._pump, daemon=True, name="agenttools-output")
        self._thread.start()

    @property
    def file_truncated(self) -> bool:
        return self._window_start is not None

    @property
    def available_from(self) -> int | None:
        return self._window_start

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
        with self._lock:
            self.size += moved
            self._file_len += moved
            if self._file_len >= self._head + self._note + 2 * self._window:
                self._compact()
        return moved

    def _compact(self) -> None:
        """Keep the head, the note and the latest window; the file shrinks to its budget.

        Called with the lock held. The window moves down in 1 MiB steps (memory stays bounded;
        the destination is always below the source, so a forward copy is safe).
        """
        keep = min(self._window, self.size - self._head)
        source = self._file_len - keep
        target = self._head + self._note
        if source > target:
            done = 0
            while done < keep:
                step = min(CHUNK, keep - done)
                data = os.pread(self._file_fd, step, source + done)
                os.pwrite(self._file_fd, data, target + done)
                done += len(data)
        self._file_len = target + keep
        os.ftruncate(self._file_fd, self._file_len)
        os.lseek(self._file_fd, self._file_len, os.SEEK_SET)
        self._window_start = self.size - keep
        omitted = self._window_start - self._head
        note = (
            f"\n[... {omitted} bytes of output omitted here: this file keeps the first "
            f"{self._head} and the last {keep} bytes ...]"
        ).encode()[: self._note - 1]
        os.pwrite(self._file_fd, note.ljust(self._note - 1) + b"\n", self._head)

    def _pump(self) -> None:
        os.set_blocking(self._pipe, False)
        try:
            while True:
                ready, _, _ = select.select([self._pipe], [], [], 0.05)
                if ready:
                    moved = self._move()
                    # drain what the pipe holds without a select wake-up per step
                    while moved > 0 and self._drain_until is None:
                        if moved < SMALL_STEP:
                            time.sleep(FILL_WAIT_S)
                        moved = self._move()
                    if moved == 0:
                        break
                if self._drain_until is not None and time.monotonic() > self._drain_until:
                    break
        finally:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            with self._lock:
                # BASH-OUT-08: an ended command's file is within its budget, also when the
                # output passed the budget without reaching the next compaction
                if self._file_len > self._head + self._note + self._window:
                    with contextlib.suppress(OSError):
                        self._compact()
                with contextlib.suppress(OSError):
                    os.close(self._file_fd)
                self._file_fd = -1
            self.closed.set()

    def finish(self, linger: float = 0.2) -> None:
        """The command is over: read to end of file, or stop ``linger`` s after the pipe idles.

        A kept-alive background process may hold the pipe open forever; it must not hold the
        call too.
        """
        self._drain_until = time.monotonic() + linger
        self.closed.wait()

    def read(self, start: int, length: int) -> bytes:
        """Output bytes from stream offset ``start``: fewer where the file dropped them."""
        if length <= 0:
            return b""
        with self._lock:
            fd = os.open(self.path, os.O_RDONLY)
            try:
                window = self._window_start
                if window is None:
                    return os.pread(fd, length, start)
                if start < self._head:
                    return os.pread(fd, min(length, self._head - start), start)
                if start >= window:
                    return os.pread(fd, length, self._head + self._note + (start - window))
                return b""
            finally:
                os.close(fd)

    def view(
        self,
        start: int,
        max_size: int,
        max_lines: int,
        end: int | None = None,
        unit: str = "bytes",
    ) -> View:
        stop = self.size if end is None else end
        return build_view(self.read, start, stop, max_size, max_lines, unit, self._window_start)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
