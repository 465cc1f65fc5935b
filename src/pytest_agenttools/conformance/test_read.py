"""read: arguments, errors, special files, text fidelity, and what the text must show.

Behaviour is judged on the observation (``details.observation``); the text only by neutral
checks (a number, a path, an argument name in the implementation's own vocabulary) and, for the
line-number format, by the style the manifest declares.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.read_checks import (
    PROMPT,
    expect_bounded_page,
    expect_no_exception_text,
    file_lines,
    kept_fd0,
    observed,
)
from pytest_agenttools.fixtures import builders
from pytest_agenttools.harness.assertions import (
    expect_error,
    expect_in_order,
    expect_names_argument,
    expect_names_path,
    expect_number,
    expect_ok,
    precondition,
    read_obs,
    shown,
)
from pytest_agenttools.harness.contract import ToolResult
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.run.session import NOT_RUN

UTF8_LINES = ["alpha", "bêta", "中文 text", "emoji 😀 here", "last"]
MARKER = "PAYLOAD-7f3a9c"


@clause("READ-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "argument"),
    [
        ({}, "path"),
        ({"path": 42}, "path"),
        ({"path": None}, "path"),
        ({"path": ["a.txt"]}, "path"),
        ({"path": "a.txt", "offset": "2"}, "offset"),
        ({"path": "a.txt", "offset": True}, "offset"),
        ({"path": "a.txt", "limit": 1.5}, "limit"),
    ],
    ids=[
        "missing-path",
        "path-int",
        "path-null",
        "path-list",
        "offset-str",
        "offset-bool",
        "limit-float",
    ],
)
def test_bad_arguments_are_errors(
    tools: ToolClient, ws: Workspace, manifest: Manifest, arguments: dict[str, Any], argument: str
) -> None:
    ws.put("a.txt", "one\ntwo\n")
    result = expect_error(tools.call("read", **arguments))
    expect_names_argument(result, manifest, "read", argument)


@clause("READ-ARG-03")
@pytest.mark.parametrize("path", ["a.txt\x00.png", "\x00", "sub/\x00/a.txt"])
def test_nul_in_path(tools: ToolClient, ws: Workspace, path: str) -> None:
    ws.put("a.txt", "x\n")
    expect_error(tools.call("read", path=path, _timeout=PROMPT))


@clause("READ-ARG-04")
@pytest.mark.parametrize("limit", [0, -1, -5, -(10**18)], ids=["0", "-1", "-5", "-1e18"])
def test_limit_below_one_is_an_error(
    tools: ToolClient, ws: Workspace, manifest: Manifest, limit: int
) -> None:
    ws.put("a.txt", "one\ntwo\n")
    result = expect_error(tools.read(path="a.txt", limit=limit))
    expect_names_argument(result, manifest, "read", "limit")


@clause("READ-ARG-04")
@pytest.mark.parametrize("offset", [0, -1, -100])
def test_offset_below_one_is_an_error_or_the_start(
    tools: ToolClient, ws: Workspace, manifest: Manifest, offset: int
) -> None:
    ws.put("a.txt", "one\ntwo\nthree\n")
    result = tools.read(path="a.txt", offset=offset)
    if result.is_error:
        expect_names_argument(result, manifest, "read", "offset")
        return
    obs = read_obs(result)
    assert (obs.start_line, list(obs.lines)) == (1, ["one", "two", "three"]), (
        f"offset={offset} must be an error or read from line 1; saw lines {list(obs.lines)} "
        f"from {obs.start_line}"
    )


EXTREME_NUMBERS = [10**18, -(10**18), 2**63, 2**64]


@clause("READ-ARG-05")
@pytest.mark.parametrize("value", EXTREME_NUMBERS, ids=["1e18", "-1e18", "2^63", "2^64"])
@pytest.mark.parametrize("argument", ["offset", "limit"])
def test_extreme_numbers(tools: ToolClient, ws: Workspace, argument: str, value: int) -> None:
    ws.put("a.txt", "one\ntwo\nthree\n")
    arguments: dict[str, Any] = {"path": "a.txt", argument: value}
    result = tools.call_raw("read", arguments, timeout=PROMPT)
    expect_no_exception_text(result)
    if result.is_error:
        expect_error(result)
        return
    # an error or a bounded page, promptly and cleanly; which one (an offset past the end is an
    # error, READ-OFF-01; a huge limit shows the whole file) is other clauses' rule
    expect_bounded_page(read_obs(result), f"read({argument}={value})")


@clause("READ-ARG-05")
@pytest.mark.parametrize(
    "path",
    ["\ud800.txt", "a\udfffb.txt", "x" * 5000, "d" * 300 + "/a.txt", "\udc80\udcff"],
    ids=[
        "lone-high-surrogate",
        "lone-low-surrogate",
        "5000-chars",
        "300-char-component",
        "escapes",
    ],
)
def test_hostile_paths(tools: ToolClient, ws: Workspace, path: str) -> None:
    result = tools.call("read", path=path, _timeout=PROMPT)
    expect_no_exception_text(result)
    expect_error(result)


@clause("READ-NF-01")
@pytest.mark.parametrize("path", ["no_such_file.txt", "deeper/missing-notes.md"])
def test_missing_file_names_the_path(tools: ToolClient, ws: Workspace, path: str) -> None:
    result = expect_error(tools.read(path=path))
    expect_names_path(result, path, tools.cwd)


@clause("READ-NF-01")
def test_missing_absolute_path_is_named(tools: ToolClient, ws: Workspace) -> None:
    target = str(ws.file("gone.txt"))
    expect_names_path(expect_error(tools.read(path=target)), target, tools.cwd)


@clause("READ-DIR-02")
def test_directory_is_an_error(tools: ToolClient, ws: Workspace) -> None:
    (ws.root / "sub").mkdir()
    ws.put("sub/inner.txt", "inside\n")
    expect_error(tools.read(path="sub"))


@clause("READ-DEV-01")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/random"])
def test_endless_devices_are_refused(tools: ToolClient, device: str) -> None:
    expect_error(tools.call("read", path=device, _timeout=PROMPT))


@clause("READ-DEV-02")
def test_dev_null_is_empty(tools: ToolClient) -> None:
    obs = read_obs(expect_ok(tools.call("read", path="/dev/null", _timeout=PROMPT)))
    assert obs.lines == () and not obs.truncated, f"/dev/null has no lines; saw {obs.lines!r:.200}"
    assert obs.total_lines in (None, 0), f"/dev/null has 0 lines, not {obs.total_lines}"


@clause("READ-DEV-03")
@pytest.mark.parametrize("device", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/tty"])
def test_standard_streams_are_refused(tools: ToolClient, ws: Workspace, device: str) -> None:
    # An implementation in this process reads this process's fd 0: make it a regular file
    # with a marker, so a tool that follows the stream shows it (a pipe or a terminal would
    # be refused as a special file and hide the defect).
    stdin = ws.put("stdin.txt", f"{MARKER}\n")
    with kept_fd0(str(stdin)):
        result = tools.call("read", path=device, _timeout=PROMPT)
    assert MARKER not in result.text, f"read({device}) showed what stdin holds: {shown(result)}"
    expect_error(result)


@clause("READ-DEV-03")
def test_link_to_stdin_is_refused(tools: ToolClient, ws: Workspace) -> None:
    stdin = ws.put("stdin.txt", f"{MARKER}\n")
    os.symlink("/dev/stdin", ws.file("input"))
    with kept_fd0(str(stdin)):
        result = tools.call("read", path="input", _timeout=PROMPT)
    assert MARKER not in result.text, f"a link to /dev/stdin showed stdin: {shown(result)}"
    expect_error(result)


def _block_device(ws: Workspace, name: str) -> None:
    """A block device node in the workspace with no data behind it (builders.make_block_device):
    a tool that reads it past the refusal sees an empty device, never a real disk."""
    try:
        builders.make_block_device(ws.file(name))
    except PermissionError as exc:
        pytest.skip(f"making a block device node needs root or CAP_MKNOD here: {exc}")


@clause("READ-DEV-04")
def test_block_device_is_refused(tools: ToolClient, ws: Workspace) -> None:
    _block_device(ws, "disk")
    expect_error(tools.call("read", path="disk", _timeout=PROMPT))


@clause("READ-DEV-04")
def test_link_to_block_device_is_refused(tools: ToolClient, ws: Workspace) -> None:
    _block_device(ws, "disk")
    os.symlink("disk", ws.file("link"))
    expect_error(tools.call("read", path="link", _timeout=PROMPT))


@clause("READ-SPECIAL-02")
def test_fifo_is_refused_without_blocking(tools: ToolClient, ws: Workspace) -> None:
    builders.make_fifo(ws.file("pipe"))
    expect_error(tools.call("read", path="pipe", _timeout=PROMPT))


@clause("READ-SPECIAL-02")
def test_socket_is_refused(tools: ToolClient, ws: Workspace) -> None:
    _, sock = builders.make_socket(ws.file("sock"))
    try:
        expect_error(tools.call("read", path="sock", _timeout=PROMPT))
    finally:
        sock.close()


@clause("READ-SPECIAL-02")
def test_symlink_to_fifo_is_refused(tools: ToolClient, ws: Workspace) -> None:
    builders.make_fifo(ws.file("pipe"))
    os.symlink("pipe", ws.file("link"))
    expect_error(tools.call("read", path="link", _timeout=PROMPT))


@clause("READ-TEXT-01")
def test_utf8_lines_exact(tools: ToolClient, ws: Workspace) -> None:
    ws.put("u.txt", "\n".join(UTF8_LINES) + "\n")
    _, obs = observed(tools, path="u.txt")
    assert (obs.start_line, list(obs.lines)) == (1, UTF8_LINES)


@clause("READ-TEXT-01")
def test_absolute_path(tools: ToolClient, ws: Workspace) -> None:
    ws.put("u.txt", "a\nb\n")
    _, obs = observed(tools, path=str(ws.file("u.txt")))
    assert list(obs.lines) == ["a", "b"]


@clause("READ-TEXT-01")
def test_no_final_newline(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/no_final_newline.txt", "n.txt")
    _, obs = observed(tools, path="n.txt")
    assert list(obs.lines) == ws.get("n.txt").decode().split("\n")


@clause("READ-TEXT-01")
def test_whitespace_and_tabs_kept(tools: ToolClient, ws: Workspace) -> None:
    lines = ["\tindented", "  two spaces", "trailing   ", "", "a\u00a0b", "\u200bzero width"]
    ws.put("w.txt", "\n".join(lines) + "\n")
    _, obs = observed(tools, path="w.txt")
    assert list(obs.lines) == lines


@clause("READ-TEXT-01")
def test_mostly_whitespace_is_text(tools: ToolClient, ws: Workspace) -> None:
    # deep indentation (tabs, spaces) and CRLF: whitespace is text, however much of it there is
    lines = ["\t" * 6 + "}\r", "\t" * 8 + "\r", " " * 16 + "x\r", "\t\t \t\t \t\t\r"] * 20
    ws.put("deep.txt", "\n".join(lines) + "\n")
    _, obs = observed(tools, path="deep.txt")
    assert list(obs.lines) == lines


@clause("READ-TEXT-01")
def test_occasional_control_characters_are_text(tools: ToolClient, ws: Workspace) -> None:
    # a colour escape in a log line, a form feed between sections: still a UTF-8 text file
    lines = [f"line {n} of an ordinary log file" for n in range(30)]
    lines[3] = "\x1b[31mERROR\x1b[0m disk almost full"
    lines[17] = "\f"
    ws.put("log.txt", "\n".join(lines) + "\n")
    _, obs = observed(tools, path="log.txt")
    assert list(obs.lines) == lines


def _not_applicable(manifest: Manifest) -> None:
    if manifest.line_number_style.numbered is None:
        pytest.skip(
            f"{NOT_RUN}{manifest.name} declares output.line_numbers = {manifest.line_numbers}; "
            "the line-number format applies to arrow, tab and pipe only"
        )


def _numbered_rows(manifest: Manifest, result: ToolResult) -> list[tuple[int, str]]:
    """The text's lines that carry the declared style's number, as (number, text)."""
    style = manifest.line_number_style
    return [row for line in result.text.split("\n") if (row := style.parse(line)) is not None]


@clause("READ-LN-01")
def test_line_number_format(tools: ToolClient, ws: Workspace, manifest: Manifest) -> None:
    _not_applicable(manifest)
    style = manifest.line_number_style
    ws.put("u.txt", "first\nsecond\n\nfourth\n")
    result, obs = observed(tools, path="u.txt")
    if style.name == "pipe":
        found = _numbered_rows(manifest, result)
        assert found == list(obs.numbered), (
            f"expected lines numbered {obs.numbered!r} ({style.described}); saw {shown(result)}"
        )
        return
    expected = [style.render(n, line) for n, line in obs.numbered]
    text_lines = result.text.split("\n")
    found_lines = [line for line in text_lines if line in expected]
    assert found_lines == expected, (
        f"expected lines numbered {expected!r} ({style.described}); saw {shown(result)}"
    )


@clause("READ-LN-01")
def test_numbers_follow_offset(tools: ToolClient, ws: Workspace, manifest: Manifest) -> None:
    _not_applicable(manifest)
    style = manifest.line_number_style
    builders.make_line_file(ws.file("u.txt"), 12, fmt="l{n}\n")
    result, obs = observed(tools, path="u.txt", offset=10)
    assert obs.numbered == [(10, "l10"), (11, "l11"), (12, "l12")]
    if style.name == "pipe":
        found = _numbered_rows(manifest, result)
        assert found == list(obs.numbered), (
            f"lines 10 to 12 should read {obs.numbered!r} ({style.described}); saw {shown(result)}"
        )
        return
    text_lines = result.text.split("\n")
    for n, line in obs.numbered:
        assert style.render(n, line) in text_lines, (
            f"line {n} should read {style.render(n, line)!r}; saw {shown(result)}"
        )


@clause("READ-EOL-01")
def test_crlf_lines(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/crlf.txt", "c.txt")
    _, obs = observed(tools, path="c.txt")
    expected = file_lines(ws.get("c.txt").decode())
    assert all(line.endswith("\r") for line in expected), "the fixture is CRLF throughout"
    assert list(obs.lines) == expected, "one line per LF, the CR kept in its line"


@clause("READ-EOL-01")
def test_lone_cr_is_not_a_line_break(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/lone_cr.txt", "r.txt")
    _, obs = observed(tools, path="r.txt")
    assert list(obs.lines) == file_lines(ws.get("r.txt").decode()), "a file without LF is one line"
    assert len(obs.lines) == 1


@clause("READ-EOL-01")
def test_mixed_endings(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/mixed_endings.txt", "m.txt")
    _, obs = observed(tools, path="m.txt")
    assert list(obs.lines) == file_lines(ws.get("m.txt").decode())


@clause("READ-EOL-01")
def test_final_newline_adds_no_line(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "a\n\n")
    _, obs = observed(tools, path="f.txt")
    assert list(obs.lines) == ["a", ""]


@clause("READ-BOM-01")
def test_bom_not_shown(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/utf8_bom.txt", "b.txt")
    _, obs = observed(tools, path="b.txt")
    assert obs.lines and not obs.lines[0].startswith("\ufeff"), (
        f"the BOM is shown in line 1: {obs.lines[:1]!r}"
    )
    first = file_lines(ws.get("b.txt")[3:].decode())[0]
    # line 1 is the text after the BOM; whether its CR is kept is the line-ending clauses' rule
    assert obs.lines[0].removesuffix("\r") == first.removesuffix("\r"), (
        f"line 1 should be the text after the BOM, {first!r}; saw {obs.lines[0]!r}"
    )
    assert obs.bom in (None, True), "the observation says the file has no BOM"


@clause("READ-BOM-01")
def test_bom_with_crlf_and_offset(tools: ToolClient, ws: Workspace) -> None:
    ws.put("b.txt", b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    _, obs = observed(tools, path="b.txt", limit=1)
    # the BOM is not in line 1; keeping its CR is READ-EOL-01's rule, not this clause's
    assert obs.lines and obs.lines[0].removesuffix("\r") == "one", (
        f"line 1 should be 'one' without the BOM; saw {obs.lines[:1]!r}"
    )


@clause("READ-ENC-01")
def test_utf16le_decoded(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/utf16le_bom.txt", "w.txt")
    _, obs = observed(tools, path="w.txt")
    assert list(obs.lines) == file_lines(ws.get("w.txt")[2:].decode("utf-16-le"))


@clause("READ-ENC-01")
def test_utf16le_non_ascii(tools: ToolClient, ws: Workspace) -> None:
    lines = ["Grüße", "日本語", "emoji 😀"]
    ws.put("w.txt", b"\xff\xfe" + "\r\n".join(lines).encode("utf-16-le"))
    _, obs = observed(tools, path="w.txt")
    assert list(obs.lines) == [lines[0] + "\r", lines[1] + "\r", lines[2]]


@clause("READ-ENC-02")
def test_latin1_shown_as_text(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/latin1.txt", "l.txt")
    _, obs = observed(tools, path="l.txt")
    expected = file_lines(ws.get("l.txt").decode("latin-1"))
    assert list(obs.lines) == expected, f"latin-1 bytes should decode as latin-1; saw {obs.lines!r}"


@clause("READ-ENC-02")
def test_utf8_cut_short_at_the_end_is_not_utf8(tools: ToolClient, ws: Workspace) -> None:
    # the whole file is short and ends inside a character: it is not valid UTF-8
    data = "naïve café\nend é".encode()[:-1]
    ws.put("cut.txt", data)
    _, obs = observed(tools, path="cut.txt")
    assert list(obs.lines) == file_lines(data.decode("latin-1")), (
        f"a file that is not valid UTF-8 SHOULD decode as latin-1; saw {obs.lines!r}"
    )


@clause("READ-OFF-01")
@pytest.mark.parametrize("offset", [8, 12, 1000])
def test_offset_past_end(tools: ToolClient, ws: Workspace, offset: int) -> None:
    ws.put("a.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n")
    result = expect_error(tools.read(path="a.txt", offset=offset))
    expect_number(result, 7, "the file's line count", ws.root)


@clause("READ-EMPTY-02")
@pytest.mark.parametrize("content", [b"", b"\xef\xbb\xbf"], ids=["empty", "bom-only"])
def test_empty_file(tools: ToolClient, ws: Workspace, content: bytes) -> None:
    ws.put("e.txt", content)
    _, obs = observed(tools, path="e.txt")
    assert obs.lines == () and not obs.truncated and obs.next_offset is None, (
        f"an empty file has no lines and nothing to continue to; saw {obs.raw!r:.300}"
    )
    assert obs.total_lines in (None, 0)


@clause("READ-SYM-01")
def test_read_through_symlink(tools: ToolClient, ws: Workspace) -> None:
    ws.put("real.txt", "target text\n")
    os.symlink("real.txt", ws.file("link.txt"))
    _, obs = observed(tools, path="link.txt")
    assert list(obs.lines) == ["target text"]


@clause("READ-SYM-01")
def test_dangling_symlink(tools: ToolClient, ws: Workspace) -> None:
    os.symlink("nowhere.txt", ws.file("dangling.txt"))
    expect_error(tools.read(path="dangling.txt"))


BINARIES = {
    "nul-first": b"\x00\x01\x02" + MARKER.encode() + b"\x00" * 40 + b"\n",
    "nul-late": b"ordinary first line\n" * 10 + b"\x00" + MARKER.encode() + b"\n",
    "control": bytes(range(1, 9)) * 30 + b"\n" + MARKER.encode() + b"\n",
    # DEL (0x7F) is a control character as much as the C0 ones
    "delete": b"\x7f" * 240 + b"\n" + MARKER.encode() + b"\n",
}


def _expect_not_shown(result: Any) -> None:
    assert MARKER not in result.text, f"binary content reached the text: {shown(result)}"
    if result.is_error:
        return
    obs = read_obs(result)
    assert obs.lines == (), (
        f"a binary file must not be shown as text; the observation shows {len(obs.lines)} "
        f"line(s): {obs.lines[:2]!r:.200}"
    )


@clause("READ-BIN-02")
@pytest.mark.parametrize("name", sorted(BINARIES))
def test_binary_not_shown(tools: ToolClient, ws: Workspace, name: str) -> None:
    ws.put("blob.txt", BINARIES[name])
    _expect_not_shown(tools.read(path="blob.txt"))


@clause("READ-BIN-02")
@pytest.mark.parametrize("fixture", ["binary/nul.dat", "binary/control.txt"])
def test_binary_fixtures_not_shown(tools: ToolClient, ws: Workspace, fixture: str) -> None:
    ws.copy_fixture(fixture, "blob")
    result = tools.read(path="blob")
    if not result.is_error:
        obs = read_obs(result)
        assert obs.lines == (), f"{fixture} is binary; it must not be shown as lines"


# --- presentation -----------------------------------------------------------------------


@clause("READ-PRES-01")
@pytest.mark.parametrize(
    ("content", "arguments"),
    [
        ("\n".join(UTF8_LINES) + "\n", {}),
        (
            "".join(f"row {chr(97 + n % 26) * (n % 7 + 1)}\n" for n in range(40)),
            {"offset": 11, "limit": 9},
        ),
        ("a\r\nb\r\n\r\nlast", {}),
        ("x" * 50 + "\nnext\n", {}),
    ],
    ids=["utf8", "offset-limit", "crlf", "long-line"],
)
def test_text_shows_the_observed_lines(
    tools: ToolClient, ws: Workspace, content: str, arguments: dict[str, Any]
) -> None:
    tools.configure(**{"read.max_line_chars": 20})
    ws.put("f.txt", content)
    result, obs = observed(tools, path="f.txt", **arguments)
    assert obs.lines, "the page has lines"
    expect_in_order(result, list(obs.lines), "every shown line of the observation")


@clause("READ-PRES-01")
def test_text_is_not_the_observation_alone(tools: ToolClient, ws: Workspace) -> None:
    lines = [f"unique-{n}-{'q' * n}" for n in range(1, 30)]
    ws.put("f.txt", "\n".join(lines) + "\n")
    result, obs = observed(tools, path="f.txt")
    assert list(obs.lines) == lines
    expect_in_order(result, lines, "the file's lines")


@clause("READ-PRES-03")
@pytest.mark.parametrize("path", ["e.txt", "/dev/null"])
def test_empty_page_text_is_not_blank(tools: ToolClient, ws: Workspace, path: str) -> None:
    ws.put("e.txt", b"")
    result = tools.call("read", path=path, _timeout=PROMPT)
    owner = "READ-DEV-02" if path == "/dev/null" else "READ-EMPTY-02"
    with precondition(owner, f"reading {path} must succeed for its text to be judged"):
        expect_ok(result)
    assert result.text.strip(), (
        "an empty file's result must say something (a blank text looks like a failed call)"
    )
