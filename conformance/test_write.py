"""write: arguments, exact bytes, encodings kept, links, modes, atomicity, concurrency."""

from __future__ import annotations

import os
import re
import stat
from typing import Any

import pytest

from pytest_agenttools.assertions import apply_unified_patch, expect_error, expect_ok
from pytest_agenttools.markers import clause

BOM = b"\xef\xbb\xbf"
UTF16_BOM = b"\xff\xfe"


def reported_bytes(result: Any) -> int | None:
    value = result.details.get("bytes_written")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    found = re.search(r"(\d+) bytes", result.text)
    return int(found.group(1)) if found else None


@clause("WRITE-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({"content": "x"}, "path"),
        ({"path": "a.txt"}, "content"),
        ({"path": 7, "content": "x"}, "path"),
        ({"path": "a.txt", "content": 12}, "content"),
        ({"path": "a.txt", "content": ["x"]}, "content"),
        ({"path": "a.txt", "content": None}, "content"),
    ],
    ids=["no-path", "no-content", "path-int", "content-int", "content-list", "content-null"],
)
def test_bad_arguments(tools: Any, ws: Any, arguments: dict[str, Any], mention: str) -> None:
    ws.put("a.txt", "keep me\n")
    expect_error(tools.call("write", **arguments), mention)
    assert ws.get("a.txt") == b"keep me\n", "a rejected call must not touch the file"
    assert ws.files() == ["a.txt"], f"a rejected call created files: {ws.files()}"


@clause("WRITE-ARG-02")
def test_nul_in_path(tools: Any, ws: Any) -> None:
    expect_error(tools.write(path="a\x00b.txt", content="x"))
    assert ws.files() == []


@clause("WRITE-NEW-01")
@pytest.mark.parametrize(
    "content",
    [
        "hello\n",
        "",
        "no final newline",
        "é中😀\n",
        "tabs\tand spaces  \n",
        "\ufeffstarts with BOM\n",
    ],
    ids=["ascii", "empty", "no-eol", "unicode", "whitespace", "leading-feff"],
)
def test_new_file_exact_bytes(tools: Any, ws: Any, content: str) -> None:
    expect_ok(tools.write(path="new.txt", content=content))
    assert ws.get("new.txt") == content.encode("utf-8")


@clause("WRITE-MKDIR-01")
def test_creates_parents(tools: Any, ws: Any) -> None:
    expect_ok(tools.write(path="a/b/c/d.txt", content="deep\n"))
    assert ws.get("a/b/c/d.txt") == b"deep\n"


@clause("WRITE-OVER-01")
def test_overwrite_replaces_everything(tools: Any, ws: Any) -> None:
    ws.put("o.txt", "a long original content\n" * 50)
    expect_ok(tools.write(path="o.txt", content="short\n"))
    assert ws.get("o.txt") == b"short\n"


@clause("WRITE-OVER-01")
def test_overwrite_with_empty(tools: Any, ws: Any) -> None:
    ws.put("o.txt", "something\n")
    expect_ok(tools.write(path="o.txt", content=""))
    assert ws.get("o.txt") == b""


@clause("WRITE-EOL-01")
@pytest.mark.parametrize(
    "content",
    ["a\r\nb\r\n", "a\rb\r", "a\nb\r\nc\rd", "\r\n\r\n"],
    ids=["crlf", "lone-cr", "mixed", "only-crlf"],
)
def test_line_endings_as_given(tools: Any, ws: Any, content: str) -> None:
    expect_ok(tools.write(path="e.txt", content=content))
    assert ws.get("e.txt") == content.encode()


@clause("WRITE-EOL-01")
def test_lf_content_over_crlf_file(tools: Any, ws: Any) -> None:
    ws.copy_fixture("text/crlf.txt", "c.txt")
    expect_ok(tools.write(path="c.txt", content="x\ny\n"))
    assert ws.get("c.txt") == b"x\ny\n", "write stores content as given; it does not re-apply CRLF"


@clause("WRITE-BYTES-01")
@pytest.mark.parametrize(
    "content", ["abc\n", "é€😀\r\n", "中" * 100], ids=["ascii", "astral-crlf", "cjk"]
)
def test_reported_size_matches_disk(tools: Any, ws: Any, content: str) -> None:
    result = expect_ok(tools.write(path="s.txt", content=content))
    count = reported_bytes(result)
    if count is None:
        pytest.skip("the result states no byte count")
    size = os.path.getsize(ws.file("s.txt"))
    assert count == size, f"result says {count} bytes, the file has {size}"


@clause("WRITE-BOM-01")
@pytest.mark.parametrize("content", ["new text\n", "\ufeffnew text\n"], ids=["plain", "with-feff"])
def test_bom_kept_once(tools: Any, ws: Any, content: str) -> None:
    ws.copy_fixture("text/utf8_bom.txt", "b.txt")
    expect_ok(tools.write(path="b.txt", content=content))
    assert ws.get("b.txt") == BOM + b"new text\n"


@clause("WRITE-ENC-01")
def test_utf16le_kept(tools: Any, ws: Any) -> None:
    ws.copy_fixture("text/utf16le_bom.txt", "w.txt")
    expect_ok(tools.write(path="w.txt", content="neu é 中\n"))
    assert ws.get("w.txt") == UTF16_BOM + "neu é 中\n".encode("utf-16-le")


@clause("WRITE-DIR-01")
def test_directory_target(tools: Any, ws: Any) -> None:
    ws.put("d/inside.txt", "x")
    expect_error(tools.write(path="d", content="y"), "directory")
    assert ws.get("d/inside.txt") == b"x" and os.path.isdir(ws.file("d"))


@clause("WRITE-PARENT-01")
def test_parent_is_a_file(tools: Any, ws: Any) -> None:
    ws.put("plain", "I am a file\n")
    expect_error(tools.write(path="plain/child.txt", content="y"), "plain")
    assert ws.get("plain") == b"I am a file\n" and ws.files() == ["plain"]


@clause("WRITE-SYM-01")
def test_write_through_symlink(tools: Any, ws: Any) -> None:
    ws.put("real.txt", "old\n")
    os.symlink("real.txt", ws.file("link.txt"))
    expect_ok(tools.write(path="link.txt", content="new\n"))
    assert os.path.islink(ws.file("link.txt")), "the link was replaced by a regular file"
    assert ws.get("real.txt") == b"new\n"


@clause("WRITE-MODE-01")
@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640])
def test_mode_kept(tools: Any, ws: Any, mode: int) -> None:
    target = ws.put("script.sh", "#!/bin/sh\necho hi\n")
    os.chmod(target, mode)
    expect_ok(tools.write(path="script.sh", content="#!/bin/sh\necho bye\n"))
    kept = stat.S_IMODE(os.stat(target).st_mode)
    assert kept == mode, f"mode was {oct(mode)}, is {oct(kept)} after the write"


@clause("WRITE-ATOMIC-01")
def test_concurrent_writes_never_tear(tools: Any, ws: Any) -> None:
    contents = [(chr(ord("a") + i) * 200_000 + "\n") for i in range(8)]
    pending = [tools.submit("write", path="t.txt", content=c) for c in contents]
    for call in pending:
        expect_ok(call.result(60))
    final = ws.get("t.txt").decode()
    assert final in contents, "the file is a mix of several writes"
    assert ws.files() == ["t.txt"], f"temporary files left behind: {ws.files()}"


@clause("WRITE-QUEUE-01")
def test_aliases_serialise(tools: Any, ws: Any) -> None:
    ws.put("dir/f.txt", "start\n")
    os.symlink("dir/f.txt", ws.file("alias.txt"))
    spellings = [
        "dir/f.txt",
        "./dir/f.txt",
        str(ws.file("dir/f.txt")),
        "dir/../dir/f.txt",
        "alias.txt",
    ]
    contents = {s: f"written via {s}\n" * 1000 for s in spellings}
    pending = [tools.submit("write", path=s, content=c) for s, c in contents.items()]
    for call in pending:
        expect_ok(call.result(60))
    assert ws.get("dir/f.txt").decode() in contents.values()
    assert os.path.islink(ws.file("alias.txt"))
    assert sorted(ws.files()) == ["alias.txt", "dir/f.txt"], f"stray files: {ws.files()}"


@clause("WRITE-DETAILS-01")
@pytest.mark.parametrize(
    ("old", "new", "first"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", 2),
        ("a\nb\n", "a\nb\nc\n", 3),
        ("one\r\ntwo\r\n", "one\r\nTWO\r\n", 2),
        ("x", "y\nz", 1),
    ],
    ids=["middle", "append", "crlf", "no-eol"],
)
def test_patch_and_first_changed_line(tools: Any, ws: Any, old: str, new: str, first: int) -> None:
    ws.put("p.txt", old)
    result = expect_ok(tools.write(path="p.txt", content=new))
    patch = result.details.get("patch")
    assert isinstance(patch, str) and patch, "details.patch is missing"
    assert apply_unified_patch(old, patch) == new, "details.patch does not turn old into new"
    assert result.details.get("firstChangedLine") == first


@clause("WRITE-SURR-01")
def test_lone_surrogate_rejected(tools: Any, ws: Any) -> None:
    ws.put("s.txt", "intact\n")
    result = tools.write(path="s.txt", content="bad \ud800 char\n")
    expect_error(result)
    assert ws.get("s.txt") == b"intact\n"
