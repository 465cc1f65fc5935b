"""edit: pathological files answer promptly (EDIT-BOUND-01), judged on bytes and observation.

A line diff that pairs every equal line with every other takes minutes on these files; the kit's
call deadline is the only clock here (timed bounds belong to the robustness suite).
"""

from __future__ import annotations

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.edit_checks import edit, expect_edited
from pytest_agenttools.harness.markers import clause

BLANK = 10_000


@clause("EDIT-BOUND-01")
def test_lone_change_in_blank_lines(tools: ToolClient, ws: Workspace) -> None:
    before = b"\n" * BLANK + b"MIDDLE\n" + b"\n" * BLANK
    ws.put("f.txt", before)
    result = edit(tools, old_string="MIDDLE", new_string="CHANGED")
    edited = expect_edited(
        result, ws, "f.txt", before.replace(b"MIDDLE", b"CHANGED"), replacements=1, before=before
    )
    assert edited.observation.first_changed_line in (None, BLANK + 1)


@clause("EDIT-BOUND-01")
def test_whole_file_of_blank_lines_changed(tools: ToolClient, ws: Workspace) -> None:
    before = b"\n" * (2 * BLANK)
    after = b"-\n\n" * BLANK
    ws.put("f.txt", before)
    result = edit(tools, old_string=before.decode(), new_string=after.decode())
    edited = expect_edited(result, ws, "f.txt", after, replacements=1, before=before)
    assert edited.observation.first_changed_line in (None, 1)


@clause("EDIT-BOUND-01")
def test_blank_lines_around_a_multiline_change(tools: ToolClient, ws: Workspace) -> None:
    before = b"\n" * BLANK + b"a\n" + b"\n" * BLANK + b"b\n" + b"\n" * BLANK
    ws.put("f.txt", before)
    old = "a\n" + "\n" * BLANK + "b"
    new = "\n".join(["A", ""] * (BLANK // 2)) + "B"
    expected = b"\n" * BLANK + new.encode() + b"\n" + b"\n" * BLANK
    expect_edited(edit(tools, old_string=old, new_string=new), ws, "f.txt", expected, before=before)
