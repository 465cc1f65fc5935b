"""Golden output of the `agenttools-reference/1` profile: exact texts, reviewed by a human.

Contract facts are asserted by the other modules; these pin the wording and layout that
prompt-tuned agents depend on. Update with ``--snapshot-update --agenttools-golden-dir
conformance/__snapshots__`` from a checkout, and review the diff.
"""

from __future__ import annotations

from base64 import b64decode
from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.harness.markers import clause, profile
from pytest_agenttools.run.snapshots import mask

REFERENCE = "agenttools-reference/1"
STABLE_DETAILS = (
    "error",
    "encoding",
    "bom",
    "start_line",
    "end_line",
    "has_more",
    "next_offset",
    "truncated_by",
    "total_lines",
    "line_truncations",
    "created",
    "bytes_written",
    "firstChangedLine",
    "pages_total",
    "pages_shown",
    "cells_total",
    "cells_shown",
    "diff",
    "patch",
    "replacements",
    "fuzzy",
    "line_number_prefixes_stripped",
    "occurrences",
    "lines",
)


def rendered(result: Any, workspace: Any) -> dict[str, Any]:
    root = str(workspace.root)
    details = {}
    for key in STABLE_DETAILS:
        if key in result.details:
            value = result.details[key]
            details[key] = mask(value, root) if isinstance(value, str) else value
    blocks = [
        {"type": "text", "text": mask(b["text"], root)}
        if b["type"] == "text"
        else {"type": "image", "mimeType": b["mimeType"], "bytes": len(b64decode(b["data"]))}
        for b in result.content
    ]
    return {"isError": result.is_error, "content": blocks, "details": details}


READ_CASES: dict[str, tuple[str | None, dict[str, Any]]] = {
    "utf8": ("text/utf8.txt", {}),
    "crlf": ("text/crlf.txt", {}),
    "bom": ("text/utf8_bom.txt", {}),
    "utf16le": ("text/utf16le_bom.txt", {}),
    "latin1": ("text/latin1.txt", {}),
    "empty": ("text/empty.txt", {}),
    "long-line": ("text/long_line.txt", {}),
    "many-lines-page2": ("text/many_lines.txt", {"offset": 2001, "limit": 3}),
    "many-lines-limit": ("text/many_lines.txt", {"offset": 5, "limit": 2}),
    "offset-past-end": ("text/utf8.txt", {"offset": 99}),
    "binary": ("binary/nul.dat", {}),
    "png": ("images/pixel.png", {}),
    "pdf": ("pdf/three_pages.pdf", {"pages": "2-3"}),
    "notebook": ("notebook/outputs.ipynb", {}),
    "missing": (None, {}),
}


@clause("READ-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(READ_CASES))
def test_read_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    fixture, arguments = READ_CASES[case]
    name = "missing.txt"
    if fixture is not None:
        name = ws.copy_fixture(fixture).name
    result = tools.read(path=name, **arguments)
    assert rendered(result, ws) == agenttools_golden


@clause("READ-GOLD-01")
@profile(REFERENCE)
def test_read_line_cap_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    tools.configure(**{"read.max_lines": 3, "read.max_line_chars": 8})
    ws.put("f.txt", "short\nthis line is long\nthird\nfourth\n")
    assert rendered(tools.read(path="f.txt"), ws) == agenttools_golden


@clause("READ-GOLD-01")
@profile(REFERENCE)
def test_read_size_cap_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    tools.configure(**{"read.max_bytes": 1024})
    ws.put("f.txt", "".join(f"{n:03d} " + "z" * 95 + "\n" for n in range(1, 31)))
    assert rendered(tools.read(path="f.txt"), ws) == agenttools_golden


@clause("READ-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("path", ["/dev/stdin", "/dev/zero"], ids=["devstdin", "devzero"])
def test_read_device_golden(
    tools: ToolClient, ws: Workspace, agenttools_golden: Any, path: str
) -> None:
    assert rendered(tools.read(path=path), ws) == agenttools_golden


WRITE_CASES: dict[str, tuple[bytes | None, str]] = {
    "create": (None, "one\ntwo\n"),
    "overwrite": (b"one\ntwo\nthree\n", "one\n2\nthree\n"),
    "bom": (b"\xef\xbb\xbfold\n", "new\n"),
    "utf16le": (b"\xff\xfe" + "old\n".encode("utf-16-le"), "new\n"),
    "crlf": (b"a\r\nb\r\n", "a\r\nB\r\n"),
}


@clause("WRITE-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(WRITE_CASES))
def test_write_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    old, content = WRITE_CASES[case]
    if old is not None:
        ws.put("f.txt", old)
    assert rendered(tools.write(path="f.txt", content=content), ws) == agenttools_golden


@clause("WRITE-GOLD-01")
@profile(REFERENCE)
def test_write_error_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    ws.put("d/x", "")
    assert rendered(tools.write(path="d", content="x"), ws) == agenttools_golden


EDIT_CASES: dict[str, tuple[bytes, dict[str, Any]]] = {
    "exact": (b"one\ntwo\nthree\n", {"old_string": "two", "new_string": "2"}),
    "crlf-multiline": (b"a\r\nb\r\nc\r\n", {"old_string": "a\nb", "new_string": "x\ny\nz"}),
    "fuzzy": ("say(“hi”)\n".encode(), {"old_string": 'say("hi")', "new_string": "say()"}),
    "replace-all": (b"x x\nx\n", {"old_string": "x", "new_string": "$&", "replace_all": True}),
    "ambiguous": (b"d\nd\nd\n", {"old_string": "d", "new_string": "e"}),
    "not-found": (b"abc\n", {"old_string": "zzz", "new_string": "y"}),
    "line-numbers": (b"one\ntwo\n", {"old_string": "     2\u2192two", "new_string": "2"}),
    "multi": (
        b"alpha beta\n",
        {
            "edits": [
                {"old_string": "alpha", "new_string": "A"},
                {"old_string": "beta", "new_string": "B"},
            ]
        },
    ),
    "overlap": (
        b"abcdef\n",
        {
            "edits": [
                {"old_string": "abc", "new_string": "1"},
                {"old_string": "cde", "new_string": "2"},
            ]
        },
    ),
}


@clause("EDIT-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(EDIT_CASES))
def test_edit_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    before, arguments = EDIT_CASES[case]
    ws.put("f.txt", before)
    result = tools.call("edit", file_path="f.txt", **arguments)
    assert rendered(result, ws) == agenttools_golden
