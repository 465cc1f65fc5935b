"""read: caps, continuation, paging completeness, and huge files."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_agenttools.assertions import continuation_offset, expect_ok, parse_read
from pytest_agenttools.fixtures import builders
from pytest_agenttools.markers import clause

from .strategies import file_text


def read_all(tools: Any, style: str, path: str, max_calls: int = 10_000) -> list[tuple[int, str]]:
    """Follow continuation offsets from 1; return every (number, text) shown."""
    seen: list[tuple[int, str]] = []
    offset = 1
    for _ in range(max_calls):
        result = expect_ok(tools.read(path=path, offset=offset))
        shown = parse_read(result.text, style, first_line=offset)
        assert shown.lines, f"read(offset={offset}) showed no line but did not end the file"
        seen.extend(shown.lines)
        following = continuation_offset(result)
        if following is None:
            return seen
        assert following > offset, f"continuation offset {following} does not advance past {offset}"
        offset = following
    raise AssertionError(f"still paging after {max_calls} calls")


@clause("READ-CAP-01")
def test_line_cap_and_continuation(tools: Any, ws: Any, style: str) -> None:
    cap = tools.limit("read.max_lines")
    builders.make_line_file(ws.file("many.txt"), cap + 25)
    result = expect_ok(tools.read(path="many.txt"))
    shown = parse_read(result.text, style)
    assert len(shown.lines) == cap, f"expected exactly {cap} lines, saw {len(shown.lines)}"
    assert continuation_offset(result) == cap + 1, f"expected offset={cap + 1} to continue"
    rest = parse_read(expect_ok(tools.read(path="many.txt", offset=cap + 1)).text, style, cap + 1)
    assert rest.texts == [f"line {n}" for n in range(cap + 1, cap + 26)]


@clause("READ-CAP-01")
def test_exactly_cap_lines_has_no_continuation(tools: Any, ws: Any, style: str) -> None:
    cap = tools.limit("read.max_lines")
    builders.make_line_file(ws.file("exact.txt"), cap)
    result = expect_ok(tools.read(path="exact.txt"))
    assert len(parse_read(result.text, style).lines) == cap
    assert continuation_offset(result) is None, "nothing follows the last line: no continuation"


@clause("READ-CAP-01")
def test_shipped_many_lines(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/many_lines.txt", "m.txt")
    cap = tools.limit("read.max_lines")
    lines = read_all(tools, style, "m.txt")
    assert [n for n, _ in lines] == list(range(1, 2501))
    assert len(parse_read(expect_ok(tools.read(path="m.txt")).text, style).lines) <= cap


@clause("READ-CAP-02")
def test_byte_cap(tools: Any, ws: Any, style: str) -> None:
    cap = tools.limit("read.max_bytes")
    line = "b" * 99
    builders.make_line_file(ws.file("wide.txt"), 3 * cap // 100 + 10, fmt=line + "\n")
    result = expect_ok(tools.read(path="wide.txt"))
    shown = parse_read(result.text, style)
    size = sum(len(t.encode()) + 1 for t in shown.texts)
    assert size <= cap, f"shown text is {size} bytes, over read.max_bytes={cap}"
    assert shown.texts and all(t == line for t in shown.texts), "whole lines only"
    assert continuation_offset(result) == len(shown.lines) + 1


@clause("READ-CAP-03")
def test_line_cap_cuts_long_line(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/long_line.txt", "long.txt")
    cap = tools.limit("read.max_line_chars")
    shown = parse_read(expect_ok(tools.read(path="long.txt")).text, style)
    first = shown.texts[0]
    full = ws.get("long.txt").decode().split("\n")[0]
    assert full[:cap] in first and full not in first, "the long line must be cut at the cap"
    assert len(first) < cap + 200, f"cut line is {len(first)} chars, cap is {cap}"
    assert shown.texts[1] == "tail", "lines after the long one are still shown"


@clause("READ-CAP-03")
def test_configured_line_cap(tools: Any, ws: Any, style: str) -> None:
    if not tools.configure(**{"read.max_line_chars": 10}):
        _declared_only(tools, ws, style)
        return
    ws.put("l.txt", "0123456789ABCDEF\nshort\n")
    shown = parse_read(expect_ok(tools.read(path="l.txt")).text, style)
    assert shown.texts[0].startswith("0123456789") and "A" not in shown.texts[0]
    assert shown.texts[1] == "short"


def _declared_only(tools: Any, ws: Any, style: str) -> None:
    cap = tools.limit("read.max_line_chars")
    ws.put("l.txt", "z" * (cap + 5) + "\nshort\n")
    shown = parse_read(expect_ok(tools.read(path="l.txt")).text, style)
    assert shown.texts[0].count("z") == cap and shown.texts[1] == "short"


@clause("READ-PAGE-02")
def test_offset_and_limit(tools: Any, ws: Any, style: str) -> None:
    builders.make_line_file(ws.file("f.txt"), 50)
    shown = parse_read(expect_ok(tools.read(path="f.txt", offset=10, limit=5)).text, style, 10)
    assert shown.texts == [f"line {n}" for n in range(10, 15)]
    tail = parse_read(expect_ok(tools.read(path="f.txt", offset=48, limit=10)).text, style, 48)
    assert tail.texts == ["line 48", "line 49", "line 50"]


@clause("READ-PAGE-02")
def test_limit_gives_continuation(tools: Any, ws: Any) -> None:
    builders.make_line_file(ws.file("f.txt"), 50)
    assert continuation_offset(expect_ok(tools.read(path="f.txt", offset=3, limit=4))) == 7


@clause("READ-PAGE-01")
@given(text=file_text(), max_lines=st.integers(1, 7), max_bytes=st.integers(64, 400))
def test_paging_reconstructs_file(
    tools: Any, ws: Any, style: str, text: str, max_lines: int, max_bytes: int
) -> None:
    tools.configure(
        **{"read.max_lines": max_lines, "read.max_bytes": max_bytes, "read.max_line_chars": 100_000}
    )
    assume(text != "")  # the empty file is READ-EMPTY-01's
    where = ws.subdir()
    (where.root / "f.txt").write_bytes(text.encode("utf-8"))
    path = str(where.root / "f.txt")
    seen = read_all(tools, style, path)
    numbers = [n for n, _ in seen]
    assert numbers == list(range(1, len(seen) + 1)), f"lines repeated or skipped: {numbers}"
    joined = "\n".join(t for _, t in seen)
    assert text in (joined, joined + "\n"), "the pages do not add up to the file"


@clause("READ-STREAM-01")
def test_page_one_of_huge_file(tools: Any, ws: Any, style: str) -> None:
    builders.make_text_file(ws.file("huge.log"), 64 * 1024 * 1024)
    result = expect_ok(tools.call("read", path="huge.log", _timeout=60))
    shown = parse_read(result.text, style)
    size = sum(len(t.encode()) + 1 for t in shown.texts)
    assert size <= tools.limit("read.max_bytes"), f"page one holds {size} bytes of file text"
    assert len(shown.lines) <= tools.limit("read.max_lines")
    assert continuation_offset(result) == len(shown.lines) + 1


@clause("READ-STREAM-01")
def test_one_huge_line(tools: Any, ws: Any, style: str) -> None:
    with open(ws.file("one.line"), "wb") as handle:
        chunk = b"x" * (1024 * 1024)
        for _ in range(16):
            handle.write(chunk)
    result = expect_ok(tools.call("read", path="one.line", _timeout=60))
    shown = parse_read(result.text, style)
    assert len(shown.lines) == 1, "the file is one line"
    assert len(shown.texts[0]) < tools.limit("read.max_line_chars") + 100, "the line must be cut"
