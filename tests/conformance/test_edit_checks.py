"""``expect_edited``'s messages say what they mean: a wrong ``first_changed_line`` is shown
beside the lines that differ, and the result's text is labelled as the text, not as a line.
``expect_kept_encoding`` (EDIT-ENC-03) tells a file left unchanged from one re-encoded."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_agenttools.conformance.edit_checks import (
    UTF16LE_BOM,
    expect_edited,
    expect_kept_encoding,
)
from pytest_agenttools.harness.contract import ToolCall, ToolResult
from pytest_agenttools.harness.workspace import Workspace
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def test_a_wrong_first_changed_line_is_not_shown_as_the_text(tmp_path: Path) -> None:
    before = b"one\ntwo\nthree\n"
    (tmp_path / "a.txt").write_bytes(before)
    arguments = {"file_path": "a.txt", "old_string": "three", "new_string": "THREE"}
    raw = ReferenceTools().call("edit", arguments, str(tmp_path))
    observation = {**raw["details"]["observation"], "first_changed_line": 1}
    result = ToolResult(
        content=tuple(raw["content"]),
        is_error=raw["isError"],
        details={**raw["details"], "observation": observation},
        call=ToolCall("edit", arguments, str(tmp_path)),
    )
    with pytest.raises(AssertionError) as caught:
        expect_edited(result, Workspace(tmp_path), "a.txt", b"one\ntwo\nTHREE\n", before=before)
    said = str(caught.value).splitlines()[0]
    assert "the first line that differs between the file before and after is line 3" in said
    assert "; the result's text was " in said


BEFORE = UTF16LE_BOM + "h\u00e9llo\r\nw\u00f6rld\r\n".encode("utf-16-le")
AFTER = UTF16LE_BOM + "h\u00e9llo\r\nw\u00ealt\r\n".encode("utf-16-le")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (BEFORE, "the edit reported success but left the UTF-16-LE file unchanged"),
        ("h\u00e9llo\r\nw\u00ealt\r\n".encode(), "written in another encoding (utf-8-sig)"),
        (UTF16LE_BOM + "h\u00e9llo\r\n".encode("utf-16-le"), "does not hold the edit"),
    ],
    ids=["unchanged", "re-encoded", "other-content"],
)
def test_a_utf16_file_left_unchanged_is_not_called_re_encoded(data: bytes, said: str) -> None:
    with pytest.raises(AssertionError) as caught:
        expect_kept_encoding(data, BEFORE, AFTER)
    assert said in str(caught.value)
    if data == BEFORE:
        assert "encoding" not in str(caught.value)
    expect_kept_encoding(AFTER, BEFORE, AFTER)


def test_enc_03_calls_an_untouched_file_unchanged(tmp_path: Path) -> None:
    from tests.support import suite_report

    data = suite_report(tmp_path, "EDIT-ENC-03", impl="tests.conformance.edit_skips_utf16:create")
    assert data["clauses"]["EDIT-ENC-03"] == "failed", data["output"]
    messages = "\n".join(str(t.get("message") or "") for t in data["tests"])
    said = "\n".join(line for line in messages.splitlines() if line.startswith("E "))
    assert "left the UTF-16-LE file unchanged" in said and "another encoding" not in said, said
