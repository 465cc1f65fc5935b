"""confine.files for edit: outside allow_write or under forbid_read refused, the file unchanged
(EDIT-CONF-01)."""

from __future__ import annotations

import os

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.confine_support import SECRET, Confined, expect_no_leak
from pytest_agenttools.harness.assertions import expect_error, expect_ok
from pytest_agenttools.harness.markers import clause

SPELLINGS = ["OUT/existing.txt", "../OUTNAME/existing.txt", "link-file", "link-dir/existing.txt"]
SPELLINGS += ["hard", "secrets/key.txt"]


@clause("EDIT-CONF-01")
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_outside_edit_refused(
    tools: ToolClient, ws: Workspace, confined: Confined, spelling: str
) -> None:
    out = str(confined.outside.root)
    os.symlink(os.path.join(out, "existing.txt"), ws.file("link-file"))
    os.symlink(out, ws.file("link-dir"))
    os.link(os.path.join(out, "existing.txt"), ws.file("hard"))
    ws.put("secrets/key.txt", f"ORIGINAL {SECRET}\n")
    confined.apply(forbid_read=[str(ws.file("secrets"))])
    before = confined.outside.snapshot()
    key_before = ws.get("secrets/key.txt")
    path = spelling.replace("OUTNAME", confined.outside.name).replace("OUT", out)
    result = tools.edit(file_path=path, old_string="ORIGINAL", new_string="EDITED")
    assert confined.outside.snapshot() == before, f"edit {path!r} changed a file outside"
    assert ws.get("secrets/key.txt") == key_before, "edit changed a file under forbid_read"
    if spelling != "hard":
        expect_error(result, what=f"an edit outside the roots: {path}")
    expect_no_leak(result, path)


@clause("EDIT-CONF-01")
def test_inside_edit_works(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.put("in.txt", "ORIGINAL inside\n")
    os.symlink("in.txt", ws.file("in-link"))
    confined.apply()
    expect_ok(tools.edit(file_path="in-link", old_string="ORIGINAL", new_string="EDITED"))
    assert ws.get("in.txt") == b"EDITED inside\n"
