"""Kit tests of the reference output capture: the pure view functions with exact values, and
OutputCapture driven through real pipes, sockets and temp files (BASH-OUT-04, -06, -07, -08)."""

from __future__ import annotations

import fcntl
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import output_capture
from pytest_agenttools.implementations.reference.output_capture import (
    NOTE_BYTES,
    OutputCapture,
    View,
    _fit_prefix,
    _fit_suffix,
    _longest,
    _trim_partial_end,
    _trim_partial_start,
    build_view,
    clean_text,
    count_lines,
    measure_in,
)
from tests.implementations.reference.test_bash_units import view_of

BYTES = measure_in("bytes")
#: a generous bound for a thread that should end at once: only a broken capture reaches it
HANG = 10.0


def memory_reader(data: bytes, kept_head: int | None = None, window: int | None = None) -> Any:
    """``read(offset, length)`` over ``data`` as OutputCapture.read serves it: a negative offset
    is an error, as it is for a file, and with ``kept_head``/``window`` the bytes between them
    are gone."""

    def read(start: int, length: int) -> bytes:
        if start < 0:
            raise ValueError(f"read at offset {start}")
        if kept_head is not None and window is not None and kept_head <= start < window:
            return b""
        stop = start + length
        if kept_head is not None and start < kept_head:
            stop = min(stop, kept_head)
        return data[start:stop]

    return read


def lines(first: int, last: int) -> str:
    return "".join(f"line {i:04d}\n" for i in range(first, last))


# --- pure helpers -------------------------------------------------------------------------


def test_clean_text_drops_controls_without_a_trace() -> None:
    assert clean_text(b"a\x00b\x7fc\r\n") == "abc\r\n"


def test_measure_in_chars_and_bytes() -> None:
    assert measure_in("chars")("中é") == 2
    assert measure_in("bytes")("中é") == 5


@pytest.mark.parametrize(
    ("text", "count"), [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\n\n", 2)]
)
def test_count_lines(text: str, count: int) -> None:
    assert count_lines(text) == count


@pytest.mark.parametrize(
    ("data", "trimmed"),
    [
        (b"", b""),
        (b"abc", b"abc"),
        (b"\x80a", b"a"),
        (b"\x80\xbfa", b"a"),
        (b"\x80\x80\x80\x80a", b"\x80a"),  # at most 3 continuation bytes belong to a cut char
        (b"\xc0a", b"\xc0a"),  # a lead byte is not dropped
        (b"\x7fa", b"\x7fa"),
    ],
)
def test_trim_partial_start(data: bytes, trimmed: bytes) -> None:
    assert _trim_partial_start(data) == trimmed


@pytest.mark.parametrize(
    ("data", "trimmed"),
    [
        (b"", b""),
        (b"\x80", b"\x80"),  # a stray continuation byte is not a cut character
        (b"a\xc0", b"a"),
        (b"a\xc3\xa9", b"a\xc3\xa9"),  # é whole
        (b"a\xe0\xa4", b"a"),
        (b"a\xe4", b"a"),
        (b"ab\xe4", b"ab"),
        (b"a\xe4\xb8", b"a"),
        (b"a\xe4\x80", b"a"),
        (b"a\xe4\xb8\xad", b"a\xe4\xb8\xad"),  # 中 whole
        (b"a\xf0\x9f\x98", b"a"),
        (b"a\xf0\x9f\x98\x80", b"a\xf0\x9f\x98\x80"),  # 😀 whole
        (b"\x80\x80\x80\x80\x80", b"\x80\x80\x80\x80\x80"),
    ],
)
def test_trim_partial_end(data: bytes, trimmed: bytes) -> None:
    assert _trim_partial_end(data) == trimmed


def test_fit_prefix() -> None:
    assert _fit_prefix(b"ab\ncd\n", 6, 10, BYTES) == b"ab\ncd\n", "exactly the budget fits"
    assert _fit_prefix(b"ab\ncd\n", 5, 10, BYTES) == b"ab\n"
    assert _fit_prefix(b"a\nb\nc\n", 100, 2, BYTES) == b"a\nb\n"
    assert _fit_prefix(b"ab\ncd", 100, 10, BYTES) == b"ab\n", "a line without LF is not whole"
    assert _fit_prefix(b"abcdef", 3, 10, BYTES) == b"abc", "part of the first line"
    assert _fit_prefix(b"", 10, 10, BYTES) == b""


def test_fit_suffix() -> None:
    assert _fit_suffix(b"ab\ncd\n", 6, 10, BYTES, True) == b"ab\ncd\n", "exactly the budget"
    assert _fit_suffix(b"ab\ncd\n", 100, 10, BYTES, True) == b"ab\ncd\n"
    assert _fit_suffix(b"ab\ncd\n", 100, 10, BYTES, False) == b"cd\n"
    assert _fit_suffix(b"ab\ncd\nef\n", 100, 10, BYTES, False) == b"cd\nef\n"
    assert _fit_suffix(b"ab\ncd\nef\n", 100, 2, BYTES, True) == b"cd\nef\n"
    assert _fit_suffix(b"\x80ab\ncd\n", 100, 10, BYTES, True) == b"cd\n", "cut inside a char"
    assert _fit_suffix(b"abcdef", 3, 10, BYTES, True) == b"def", "part of the last line"
    assert _fit_suffix(b"", 10, 10, BYTES, True) == b""


def test_longest() -> None:
    size: Callable[[str], int] = len
    assert _longest(b"abcdef", 3, size, from_end=False) == b"abc"
    assert _longest(b"abcdef", 3, size, from_end=True) == b"def"
    assert _longest(b"abc", 1, size, from_end=False) == b"a"
    assert _longest(b"abc", 0, size, from_end=False) == b""
    # one stray byte shows as U+FFFD, 3 bytes: it does not fit 1 byte
    assert _longest(b"\x80x", 1, BYTES, from_end=False) == b""
    assert _longest("中中".encode(), 4, BYTES, from_end=True) == "中".encode()


@pytest.mark.parametrize("seed", range(40))
def test_longest_is_the_longest_that_fits(seed: int) -> None:
    """Against a linear scan: the binary search finds the longest fitting cut."""
    rng = random.Random(seed)
    alphabet = [b"a", b"\n", b"\x00", b"\x80", b"\xc3\xa9", "中".encode(), b"\xe4", b"\xf0\x9f"]
    line = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
    for unit in ("bytes", "chars"):
        measure = measure_in(unit)
        for budget in range(0, 8):
            for from_end in (False, True):
                best = b""
                for n in range(len(line) + 1):
                    cut = (
                        _trim_partial_start(line[len(line) - n :])
                        if from_end
                        else _trim_partial_end(line[:n])
                    )
                    if measure(clean_text(cut)) <= budget:
                        best = cut
                assert _longest(line, budget, measure, from_end=from_end) == best


# --- build_view ---------------------------------------------------------------------------


def test_view_of_nothing_reads_nothing() -> None:
    def read(start: int, length: int) -> bytes:
        raise AssertionError("no read for an empty range")

    assert build_view(read, 5, 5, 10, 10) == View("", False, 0, 0, "", "")
    assert build_view(read, 7, 5, 10, 10) == View("", False, 0, 0, "", "")


def test_view_whole() -> None:
    assert build_view(memory_reader(b"a"), 0, 1, 10, 10) == View("a", False, 1, 0, "a", "")
    view = build_view(memory_reader(b"0123456789"), 5, 10, 100, 10)
    assert view == View("56789", False, 5, 0, "56789", "")


def test_view_whole_at_exactly_the_caps(tmp_path: Path) -> None:
    data = b"ab\ncdefghi\n"  # 11 bytes, 2 lines
    assert view_of(tmp_path, data, 11, 10) == View(data.decode(), False, 11, 0, data.decode(), "")
    data = b"abcdefghij\nb\nc\n"  # 15 bytes, 3 lines
    assert view_of(tmp_path, data, 20, 3) == View(data.decode(), False, 15, 0, data.decode(), "")


def test_view_whole_when_controls_pad_the_bytes(tmp_path: Path) -> None:
    """48 raw bytes, 11 shown: the shown text is within 11 bytes, so it is shown whole."""
    data = b"ab\n" + b"\x00" * 37 + b"cdefghi\n"
    text = "ab\ncdefghi\n"
    assert view_of(tmp_path, data, 11, 10) == View(text, False, 48, 0, text, "")


def test_view_whole_when_head_and_tail_meet(tmp_path: Path) -> None:
    """Too many raw bytes for the quick path, yet head and tail cover all: nothing omitted."""
    data = b"\x00" * 46 + b"a"
    assert view_of(tmp_path, data, 10, 10) == View("a", False, 47, 0, "a", "")


def test_view_counts_chars(tmp_path: Path) -> None:
    text = "中" * 10
    assert view_of(tmp_path, text.encode(), 10, 10, "chars") == View(text, False, 30, 0, text, "")
    by_bytes = view_of(tmp_path, text.encode(), 10, 10, "bytes")
    assert by_bytes.truncated and len((by_bytes.head + by_bytes.tail).encode()) <= 10


@pytest.mark.parametrize("max_size", [0, 1])
def test_view_of_one_byte_cap(tmp_path: Path, max_size: int) -> None:
    """A cap below 1 is 1; no head fits 45 % of 1 byte, the tail keeps the last byte."""
    expected = View("[... 1 bytes omitted ...]\nb", True, 2, 1, "", "b")
    assert view_of(tmp_path, b"ab", max_size, 10) == expected


def test_view_head_budget_is_not_spent_on_controls(tmp_path: Path) -> None:
    expected = View("[... 4 bytes omitted ...]\nc", True, 5, 4, "", "c")
    assert view_of(tmp_path, b"\x00\x00abc", 1, 10) == expected


def test_view_of_one_line_cap(tmp_path: Path) -> None:
    expected = View("[... 4 bytes omitted ...]\ndef\n", True, 8, 4, "", "def\n")
    assert view_of(tmp_path, b"abc\ndef\n", 100, 1) == expected


def test_view_cut_by_lines() -> None:
    """3 lines: 1 for the head, 2 for the tail; the range ends before the file does."""
    data = b"a\nb\nc\nd\n" + b"XYZ\n"
    expected = View("a\n[... 2 bytes omitted ...]\nc\nd\n", True, 8, 2, "a\n", "c\nd\n")
    assert build_view(memory_reader(data), 0, 8, 100, 3) == expected


def test_view_head_cut_inside_a_line(tmp_path: Path) -> None:
    """3 bytes: 1 for the head (part of a line, so the marker starts on a new line), 2 for the
    tail."""
    expected = View("a\n[... 5 bytes omitted ...]\nf\n", True, 8, 5, "a", "f\n")
    assert view_of(tmp_path, b"a\nbcdef\n", 3, 10) == expected


def test_view_tail_window_counts_raw_bytes(tmp_path: Path) -> None:
    """The tail's raw window holds 4 bytes a shown byte plus 4: here the whole 12 bytes, so the
    NULs before "ab" are part of the tail and only "x\\n" is omitted."""
    data = b"x\n" + b"\x00" * 8 + b"ab"
    expected = View("[... 2 bytes omitted ...]\nab", True, 12, 2, "", "ab")
    assert view_of(tmp_path, data, 2, 10) == expected


def test_view_tail_starting_at_a_line_start(tmp_path: Path) -> None:
    """The tail window starts right after a LF: its first line is whole and is kept."""
    before = b"ab\n" + b"\x00" * 20  # 23 bytes
    window = b"\x00" * 22 + b"cd\n" + b"ef\n"  # the last 6 * 4 + 4 = 28 bytes
    data = before + b"\n" + window
    expected = View("ab\n[... 21 bytes omitted ...]\ncd\nef\n", True, 52, 21, "ab\n", "cd\nef\n")
    assert view_of(tmp_path, data, 10, 10) == expected


def test_view_of_a_file_that_dropped_its_middle() -> None:
    """The tail is taken from the kept window, never from the dropped middle; the window's
    first line is not known to be whole, so it is not shown."""
    data = lines(0, 20).encode()
    read = memory_reader(data, kept_head=50, window=150)
    view = build_view(read, 0, len(data), 100, 100, available_from=150)
    tail = lines(16, 20)
    assert view == View(
        lines(0, 4) + "[... 120 bytes omitted ...]\n" + tail, True, 200, 120, lines(0, 4), tail
    )


# --- OutputCapture ------------------------------------------------------------------------


def _data(size: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(size)


@contextmanager
def capture_of(tmp_path: Path, read_fd: int, file_max_bytes: int = 1 << 20) -> Iterator[Any]:
    capture = OutputCapture(read_fd, file_max_bytes=file_max_bytes, directory=str(tmp_path))
    try:
        yield capture
    finally:
        capture.discard()


def _captured(tmp_path: Path, data: bytes, file_max_bytes: int) -> OutputCapture:
    """``data`` (at most a pipe's buffer) is in the pipe before the capture starts, so the
    capture moves it in one step."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    capture = OutputCapture(read_end, file_max_bytes=file_max_bytes, directory=str(tmp_path))
    capture.finish()
    return capture


def _note(omitted: int, head: int, kept: int) -> bytes:
    text = (
        f"\n[... {omitted} bytes of output omitted here: this file keeps the first {head} "
        f"and the last {kept} bytes ...]"
    )
    return text.encode().ljust(NOTE_BYTES - 1) + b"\n"


def _finish_within(capture: OutputCapture, linger: float) -> bool:
    finisher = threading.Thread(target=capture.finish, args=(linger,), daemon=True)
    finisher.start()
    finisher.join(HANG)
    return not finisher.is_alive()


def _wait_for_size(capture: OutputCapture, size: int) -> None:
    """Until the pump has moved ``size`` bytes. The count is read under the capture's lock: the
    pump adds to it and compacts the file in one hold of that lock, so a count read without it
    can run ahead of the compaction it triggers."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        with capture._lock:
            if capture.size >= size:
                break
        time.sleep(0.001)
    assert capture.size == size


def test_output_file_is_named_and_placed(tmp_path: Path) -> None:
    capture = _captured(tmp_path, b"hi\n", 1 << 20)
    try:
        path = Path(capture.path)
        assert path.parent == tmp_path
        assert path.name.startswith("agenttools-bash-") and path.name.endswith(".log")
        assert path.read_bytes() == b"hi\n"
    finally:
        capture.discard()


def test_small_cap_is_raised_and_file_compacted_exactly(tmp_path: Path) -> None:
    """A cap below 4 notes is 640 bytes: the first 320, a 160-byte note, the last 160."""
    data = _data(2000)
    capture = _captured(tmp_path, data, 100)
    try:
        assert capture.size == 2000 and capture.file_truncated and capture.available_from == 1840
        assert Path(capture.path).read_bytes() == data[:320] + _note(1520, 320, 160) + data[1840:]
        assert capture.read(0, 2000) == data[:320]
        assert capture.read(10, 1000) == data[10:320], "the head, never the note"
        assert capture.read(320, 5) == b""
        assert capture.read(1000, 10) == b"", "the dropped middle is not pretended"
        assert capture.read(1840, 10) == data[1840:1850]
        assert capture.read(1845, 100) == data[1845:1945]
        assert capture.read(1990, 100) == data[1990:]
    finally:
        capture.discard()


def test_compacted_once_the_file_holds_a_window_too_many(tmp_path: Path) -> None:
    """800 bytes = head + note + 2 windows of a 640-byte budget: the file is compacted."""
    data = _data(800, seed=2)
    capture = _captured(tmp_path, data, 640)
    try:
        assert capture.file_truncated and capture.available_from == 640
        assert Path(capture.path).read_bytes() == data[:320] + _note(320, 320, 160) + data[640:]
    finally:
        capture.discard()


def test_output_just_past_the_cap_is_cut_to_it_once_ended(tmp_path: Path) -> None:
    """700 bytes through a 640-byte budget: short of head + note + 2 windows (800), so no
    compaction while it runs, yet the ended command's file must be within its budget
    (BASH-OUT-08): the first 320, the note, the last 160."""
    data = _data(700, seed=3)
    capture = _captured(tmp_path, data, 640)
    try:
        assert capture.file_truncated and capture.available_from == 540
        assert Path(capture.path).read_bytes() == data[:320] + _note(220, 320, 160) + data[540:]
        assert os.path.getsize(capture.path) == 640
    finally:
        capture.discard()


def test_output_of_exactly_the_cap_is_kept_whole(tmp_path: Path) -> None:
    data = _data(640, seed=4)
    capture = _captured(tmp_path, data, 640)
    try:
        assert not capture.file_truncated
        assert Path(capture.path).read_bytes() == data
    finally:
        capture.discard()


def test_output_within_the_cap_is_kept_exactly_while_running(tmp_path: Path) -> None:
    """BASH-OUT-07: 600 bytes under a 640-byte cap stay exact, running and after."""
    data = _data(600, seed=3)
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    with capture_of(tmp_path, read_end, 640) as capture:
        try:
            _wait_for_size(capture, 600)
            assert not capture.file_truncated and capture.available_from is None
            assert capture.read(0, 600) == data
        finally:
            os.close(write_end)
        capture.finish()
        assert Path(capture.path).read_bytes() == data and not capture.file_truncated


def _feed(write_end: int, data: bytes) -> threading.Thread:
    def feed() -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(write_end, view[: 1 << 16]) :]
        except BrokenPipeError:
            pass
        finally:
            os.close(write_end)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


def test_compaction_moves_a_window_larger_than_one_copy_step(tmp_path: Path) -> None:
    """A 3 MiB cap keeps a window of about 1.5 MiB: it is moved in 1 MiB steps, exactly."""
    cap, size = 3 << 20, 5 << 20
    data = (bytes(range(251)) * (size // 251 + 1))[:size]
    read_end, write_end = os.pipe()
    with capture_of(tmp_path, read_end, cap) as capture:
        writer = _feed(write_end, data)
        capture.finish(linger=HANG)
        writer.join()
        head = cap // 2
        kept = cap - head - NOTE_BYTES
        assert capture.size == size and capture.available_from == size - kept
        on_disk = Path(capture.path).read_bytes()
        assert len(on_disk) == cap
        assert on_disk == data[:head] + _note(size - kept - head, head, kept) + data[-kept:]


def test_capture_of_a_socket(tmp_path: Path) -> None:
    """A socket cannot be spliced: the bytes are read and written."""
    data = _data(5000, seed=4)
    ours, theirs = socket.socketpair()
    with capture_of(tmp_path, ours.detach()) as capture:
        with theirs:
            theirs.sendall(data)
        capture.finish(linger=HANG)
        assert capture.size == 5000 and Path(capture.path).read_bytes() == data


def test_short_writes_are_continued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """os.write may write less than asked: the rest is written too."""
    real_write = os.write

    def short_write(fd: int, data: Any) -> int:
        if threading.current_thread().name == "agenttools-output":
            return real_write(fd, bytes(data[:7]))
        return real_write(fd, data)

    monkeypatch.setattr(output_capture.os, "write", short_write)
    data = _data(100, seed=5)
    ours, theirs = socket.socketpair()
    with capture_of(tmp_path, ours.detach()) as capture:
        with theirs:
            theirs.sendall(data)
        capture.finish(linger=HANG)
        assert capture.size == 100 and Path(capture.path).read_bytes() == data


def test_pump_thread_is_a_named_daemon(tmp_path: Path) -> None:
    """A background process holding the pipe must not keep the interpreter alive."""
    read_end, write_end = os.pipe()
    try:
        with capture_of(tmp_path, read_end) as capture:
            pumps = [t for t in threading.enumerate() if t.name == "agenttools-output"]
            assert pumps and all(t.daemon for t in pumps)
            assert _finish_within(capture, 0.01)
    finally:
        os.close(write_end)


def test_closed_at_end_of_output_without_finish(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"xy")
    os.close(write_end)
    with capture_of(tmp_path, read_end) as capture:
        assert capture.closed.wait(HANG), "end of file ends the capture"
        assert capture.size == 2 and Path(capture.path).read_bytes() == b"xy"


def test_finish_returns_while_a_pipe_stays_open_and_idle(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"started\n")
    try:
        with capture_of(tmp_path, read_end) as capture:
            assert _finish_within(capture, 0.01)
            assert Path(capture.path).read_bytes() == b"started\n"
    finally:
        os.close(write_end)


def test_finish_returns_while_a_pipe_keeps_flowing(tmp_path: Path) -> None:
    """A background `yes` holds the pipe and never stops: finish still returns."""
    read_end, write_end = os.pipe()
    stop = threading.Event()

    def flood() -> None:
        try:
            while not stop.is_set():
                os.write(write_end, b"y\n" * 2048)
        except BrokenPipeError:
            pass
        finally:
            os.close(write_end)

    writer = threading.Thread(target=flood, daemon=True)
    with capture_of(tmp_path, read_end) as capture:
        writer.start()
        try:
            assert _finish_within(capture, 0.01)
        finally:
            stop.set()
            writer.join(HANG)
        assert capture.size > 0


def test_finish_drains_what_follows_within_the_linger(tmp_path: Path) -> None:
    """Output still flowing when the command ends is read to end of file within the linger."""
    data = _data(2 << 20, seed=6)
    read_end, write_end = os.pipe()
    with capture_of(tmp_path, read_end, 4 << 20) as capture:
        writer = _feed(write_end, data)
        capture.finish(linger=HANG)
        writer.join()
        assert capture.size == len(data) and Path(capture.path).read_bytes() == data


def test_read_and_discard_after_the_file_is_gone(tmp_path: Path) -> None:
    capture = _captured(tmp_path, b"abc\n", 1 << 20)
    assert capture.read(0, 1) == b"a"
    assert capture.read(1, 0) == b""
    capture.discard()
    assert not Path(capture.path).exists()
    assert capture.read(0, 0) == b""
    capture.discard()  # twice is fine


def test_capture_view(tmp_path: Path) -> None:
    text = "中文\nabc\n"
    capture = _captured(tmp_path, text.encode(), 1 << 20)
    try:
        size = len(text.encode())
        assert capture.view(0, 100, 10) == View(text, False, size, 0, text, "")
        assert capture.view(0, 100, 10, end=3) == View("中", False, 3, 0, "中", "")
        assert capture.view(7, 100, 10) == View("abc\n", False, 4, 0, "abc\n", "")
        assert capture.view(0, 8, 10, unit="chars") == View(text, False, size, 0, text, "")
        assert capture.view(0, 8, 10).truncated
    finally:
        capture.discard()


def test_capture_view_of_a_compacted_file(tmp_path: Path) -> None:
    data = lines(0, 200).encode()  # 2000 bytes; the file keeps 320 + 160 of them
    capture = _captured(tmp_path, data, 100)
    try:
        tail = lines(185, 200)
        assert capture.view(0, 1000, 1000) == View(
            lines(0, 32) + "[... 1530 bytes omitted ...]\n" + tail,
            True,
            2000,
            1530,
            lines(0, 32),
            tail,
        )
    finally:
        capture.discard()


def test_a_failing_final_compaction_still_ends_the_capture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk error while the file is compacted at the end does not hang finish."""
    data = _data(900, seed=7)
    read_end, write_end = os.pipe()
    os.write(write_end, data[:800])
    with capture_of(tmp_path, read_end, 640) as capture:
        try:
            _wait_for_size(capture, 800)
            assert capture.file_truncated
            real_ftruncate = os.ftruncate

            def failing_ftruncate(fd: int, length: int) -> None:
                if threading.current_thread().name == "agenttools-output":
                    raise OSError(28, "No space left on device")
                real_ftruncate(fd, length)

            monkeypatch.setattr(output_capture.os, "ftruncate", failing_ftruncate)
            os.write(write_end, data[800:])
        finally:
            os.close(write_end)
        assert _finish_within(capture, 0.01)
        assert capture.size == 900


def test_the_pipe_is_widened_where_the_kernel_allows(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    probe_r, probe_w = os.pipe()
    try:
        fcntl.fcntl(probe_r, fcntl.F_SETPIPE_SZ, output_capture.PIPE_BYTES)
    except OSError:
        pytest.skip("this kernel refuses a pipe of that size")
    finally:
        os.close(probe_r)
        os.close(probe_w)
    capture = output_capture.OutputCapture(read_fd, directory=str(tmp_path))
    try:
        assert fcntl.fcntl(write_fd, fcntl.F_GETPIPE_SZ) >= output_capture.PIPE_BYTES
    finally:
        os.close(write_fd)
        capture.finish()


# --- the account of a cut (BASH-OUT-09) --------------------------------------------------------


def test_view_counts_the_lines_of_the_whole_range() -> None:
    view = build_view(memory_reader(b"a\nb\nc"), 0, 5, 100, 10)
    assert (view.total_lines, view.shown_lines, view.cut_by, view.tail_partial) == (
        3,
        3,
        None,
        False,
    )


def test_view_cut_by_lines_says_so() -> None:
    data = b"".join(b"%d\n" % i for i in range(100))
    view = build_view(memory_reader(data), 0, len(data), 10_000, 10)
    assert view.truncated and view.cut_by == "lines" and view.total_lines == 100
    assert view.shown_lines == 10 and not view.tail_partial


def test_view_cut_by_size_with_a_partial_last_line() -> None:
    data = b"first\n" + b"z" * 500
    view = build_view(memory_reader(data), 0, len(data), 100, 10)
    assert view.truncated and view.cut_by == "bytes" and view.total_lines == 2
    assert view.tail_partial and data.endswith(view.tail.encode())


def test_view_lines_unknown_once_the_file_dropped_them() -> None:
    data = b"x\n" * 100
    view = build_view(memory_reader(data), 0, len(data), 20, 5, available_from=150)
    assert view.total_lines is None
