"""read: arguments, errors, special files, text fidelity and line numbering."""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools.assertions import expect_error, expect_ok, parse_read
from pytest_agenttools.fixtures import builders
from pytest_agenttools.markers import clause

UTF8_LINES = ["alpha", "bêta", "中文 text", "emoji 😀 here", "last"]
PROMPT = 20.0  # seconds: far beyond any sane answer; only a hang gets near it


def page(tools: Any, style: str, **arguments: Any) -> Any:
    result = expect_ok(tools.read(**arguments), f"read({arguments})")
    return parse_read(result.text, style, first_line=arguments.get("offset") or 1)


@clause("READ-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({}, "path"),
        ({"path": 42}, "path"),
        ({"path": None}, "path"),
        ({"path": "a.txt", "offset": "2"}, "offset"),
        ({"path": "a.txt", "limit": 1.5}, "limit"),
    ],
    ids=["missing-path", "path-int", "path-null", "offset-string", "limit-float"],
)
def test_bad_arguments_are_errors(
    tools: Any, ws: Any, arguments: dict[str, Any], mention: str
) -> None:
    ws.put("a.txt", "one\ntwo\n")
    expect_error(tools.call("read", **arguments), mention)


@clause("READ-ARG-02")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({"offset": -1}, "offset"),
        ({"offset": -100}, "offset"),
        ({"limit": 0}, "limit"),
        ({"limit": -5}, "limit"),
    ],
    ids=["offset-1", "offset-100", "limit-0", "limit-neg"],
)
def test_negative_offset_and_bad_limit(
    tools: Any, ws: Any, arguments: dict[str, Any], mention: str
) -> None:
    ws.put("a.txt", "one\ntwo\n")
    expect_error(tools.read(path="a.txt", **arguments), mention)


@clause("READ-ARG-02")
def test_offset_zero_reads_from_the_start(tools: Any, ws: Any, style: str) -> None:
    ws.put("a.txt", "one\ntwo\n")
    assert page(tools, style, path="a.txt", offset=0).texts[:1] == ["one"]


@clause("READ-ARG-03")
def test_nul_in_path(tools: Any, ws: Any) -> None:
    ws.put("a.txt", "x\n")
    expect_error(tools.read(path="a.txt\x00.png"))


@clause("READ-NF-01")
def test_missing_file_names_the_path(tools: Any, ws: Any) -> None:
    expect_error(tools.read(path="no_such_file.txt"), "no_such_file.txt")


@clause("READ-DIR-01")
def test_directory_is_an_error(tools: Any, ws: Any) -> None:
    (ws.root / "sub").mkdir()
    expect_error(tools.read(path="sub"), "directory")


@clause("READ-DEV-01")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/random"])
def test_endless_devices_are_refused(tools: Any, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    expect_error(tools.call("read", path=device, _timeout=PROMPT))


@clause("READ-DEV-02")
def test_dev_null_is_empty(tools: Any) -> None:
    result = expect_ok(tools.call("read", path="/dev/null", _timeout=PROMPT))
    assert "empty" in result.text.lower(), f"expected an empty-file note, saw {result.text!r}"


@clause("READ-SPECIAL-01")
def test_fifo_is_refused_without_blocking(tools: Any, ws: Any) -> None:
    builders.make_fifo(ws.file("pipe"))
    expect_error(tools.call("read", path="pipe", _timeout=PROMPT), "pipe")


@clause("READ-SPECIAL-01")
def test_socket_is_refused(tools: Any, ws: Any) -> None:
    _, sock = builders.make_socket(ws.file("sock"))
    try:
        expect_error(tools.call("read", path="sock", _timeout=PROMPT))
    finally:
        sock.close()


@clause("READ-SPECIAL-01")
def test_symlink_to_fifo_is_refused(tools: Any, ws: Any) -> None:
    builders.make_fifo(ws.file("pipe"))
    os.symlink("pipe", ws.file("link"))
    expect_error(tools.call("read", path="link", _timeout=PROMPT))


@clause("READ-TEXT-01")
def test_utf8_lines_exact(tools: Any, ws: Any, style: str) -> None:
    ws.put("u.txt", "\n".join(UTF8_LINES) + "\n")
    assert page(tools, style, path="u.txt").texts == UTF8_LINES


@clause("READ-TEXT-01")
def test_absolute_path(tools: Any, ws: Any, style: str) -> None:
    ws.put("u.txt", "a\nb\n")
    assert page(tools, style, path=str(ws.file("u.txt"))).texts == ["a", "b"]


@clause("READ-TEXT-01")
def test_no_final_newline(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/no_final_newline.txt", "n.txt")
    expected = ws.get("n.txt").decode().split("\n")
    assert page(tools, style, path="n.txt").texts == expected


@clause("READ-LN-01")
def test_line_number_format(tools: Any, ws: Any, style: str) -> None:
    if style == "none":
        pytest.skip("the implementation declares output.line_numbers = none")
    ws.put("u.txt", "first\nsecond\n")
    text = expect_ok(tools.read(path="u.txt")).text
    sep = "\u2192" if style == "arrow" else "\t"
    lines = text.split("\n")
    assert lines[:2] == [f"     1{sep}first", f"     2{sep}second"], (
        f"expected width-6 right-aligned numbers then {sep!r}, saw {lines[:2]!r}"
    )


@clause("READ-LN-01")
def test_numbers_follow_offset(tools: Any, ws: Any, style: str) -> None:
    if style == "none":
        pytest.skip("the implementation declares output.line_numbers = none")
    ws.put("u.txt", "".join(f"l{i}\n" for i in range(1, 13)))
    numbered = page(tools, style, path="u.txt", offset=10)
    assert numbered.lines == [(10, "l10"), (11, "l11"), (12, "l12")]


@clause("READ-EOL-01")
def test_crlf_lines(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/crlf.txt", "c.txt")
    lines = ws.get("c.txt").decode().split("\n")[:-1]
    assert page(tools, style, path="c.txt").texts == lines, "one line per LF, CR kept in the line"


@clause("READ-EOL-01")
def test_lone_cr_is_not_a_line_break(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/lone_cr.txt", "r.txt")
    shown = page(tools, style, path="r.txt")
    assert len(shown.lines) == 1, f"a file without LF is one line, saw {len(shown.lines)}"


@clause("READ-EOL-01")
def test_mixed_endings(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/mixed_endings.txt", "m.txt")
    lines = ws.get("m.txt").decode().split("\n")[:-1]
    assert page(tools, style, path="m.txt").texts == lines


@clause("READ-EOL-01")
def test_final_newline_adds_no_line(tools: Any, ws: Any, style: str) -> None:
    ws.put("f.txt", "a\n\n")
    assert page(tools, style, path="f.txt").texts == ["a", ""]


@clause("READ-BOM-01")
def test_bom_not_shown(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/utf8_bom.txt", "b.txt")
    expected = ws.get("b.txt")[3:].decode().split("\n")[:-1]
    shown = page(tools, style, path="b.txt").texts
    assert not shown[0].startswith("\ufeff"), f"the BOM is shown in line 1: {shown[0]!r}"
    assert shown == expected


@clause("READ-ENC-01")
def test_utf16le_decoded(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/utf16le_bom.txt", "w.txt")
    expected = ws.get("w.txt")[2:].decode("utf-16-le").split("\n")[:-1]
    assert page(tools, style, path="w.txt").texts == expected


@clause("READ-ENC-02")
def test_latin1_shown_as_text(tools: Any, ws: Any, style: str) -> None:
    ws.copy_fixture("text/latin1.txt", "l.txt")
    expected = ws.get("l.txt").decode("latin-1").split("\n")[:-1]
    shown = page(tools, style, path="l.txt").texts
    assert shown == expected, f"latin-1 bytes should decode as latin-1; saw {shown!r}"


@clause("READ-OFF-01")
def test_offset_past_end(tools: Any, ws: Any) -> None:
    ws.put("a.txt", "one\ntwo\nthree\n")
    expect_error(tools.read(path="a.txt", offset=10), "3")


@clause("READ-EMPTY-01")
def test_empty_file(tools: Any, ws: Any) -> None:
    ws.copy_fixture("text/empty.txt", "e.txt")
    result = expect_ok(tools.read(path="e.txt"))
    assert "empty" in result.text.lower(), (
        f"expected a note that the file is empty: {result.text!r}"
    )


@clause("READ-SYM-01")
def test_read_through_symlink(tools: Any, ws: Any, style: str) -> None:
    ws.put("real.txt", "target text\n")
    os.symlink("real.txt", ws.file("link.txt"))
    assert page(tools, style, path="link.txt").texts == ["target text"]


@clause("READ-SYM-01")
def test_dangling_symlink(tools: Any, ws: Any) -> None:
    os.symlink("nowhere.txt", ws.file("dangling.txt"))
    expect_error(tools.read(path="dangling.txt"))


@clause("READ-BIN-01")
@pytest.mark.parametrize("fixture", ["binary/nul.dat", "binary/control.txt"])
def test_binary_refused(tools: Any, ws: Any, fixture: str) -> None:
    ws.copy_fixture(fixture, "blob")
    expect_error(tools.read(path="blob"), "binary")


@clause("READ-BIN-01")
def test_nul_late_in_small_file(tools: Any, ws: Any) -> None:
    ws.put("late.txt", b"plain text\n" * 10 + b"\x00tail\n")
    expect_error(tools.read(path="late.txt"), "binary")
