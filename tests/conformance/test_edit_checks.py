"""``expect_edited``'s messages say what they mean: a wrong ``first_changed_line`` is shown
beside the lines that differ, and the result's text is labelled as the text, not as a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_agenttools.conformance.edit_checks import expect_edited
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
