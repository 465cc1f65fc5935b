"""edit: what the model-facing text must carry (the EDIT-PRES clauses), judged neutrally.

The data must be there in some form: the file named absolute or relative, an argument in the
implementation's own vocabulary (``dialect.arguments``), counts and line numbers as whole
numbers with workspace paths masked. Wording and layout are the implementation's.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.edit_checks import READ_AGAIN, edit
from pytest_agenttools.harness.assertions import (
    edit_obs,
    expect_error,
    expect_names_argument,
    expect_names_path,
    expect_number,
    expect_ok,
    masked_text,
    mentions_number,
    shown,
)
from pytest_agenttools.harness.markers import clause, feature


@clause("EDIT-PRES-01")
@pytest.mark.parametrize("name", ["f.txt", "deeper/dir/notes.md"])
def test_success_names_the_file(tools: ToolClient, ws: Workspace, name: str) -> None:
    ws.put(name, "alpha\nbeta\n")
    result = expect_ok(edit(tools, name, old_string="beta", new_string="gamma"))
    obs = edit_obs(result)
    expect_names_path(result, obs.path, str(ws.root))
    expect_names_path(result, name, str(ws.root))


@clause("EDIT-PRES-01")
@feature("edit.multi")
def test_multi_edit_success_names_the_file(tools: ToolClient, ws: Workspace) -> None:
    ws.put("src/app.py", "a = 1\nb = 2\n")
    entries = [
        {"old_string": "a = 1", "new_string": "a = 3"},
        {"old_string": "b", "new_string": "c"},
    ]
    result = expect_ok(edit(tools, "src/app.py", edits=entries))
    expect_names_path(result, edit_obs(result).path, str(ws.root))


NAMED: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "no-path": ({"old_string": "a", "new_string": "b"}, ("file_path",)),
    "no-old": ({"file_path": "f.txt", "new_string": "b"}, ("old_string",)),
    "no-new": ({"file_path": "f.txt", "old_string": "a"}, ("new_string",)),
    "old-int": ({"file_path": "f.txt", "old_string": 1, "new_string": "b"}, ("old_string",)),
    "new-null": ({"file_path": "f.txt", "old_string": "a", "new_string": None}, ("new_string",)),
    "path-int": ({"file_path": 3, "old_string": "a", "new_string": "b"}, ("file_path",)),
    "replace-all-str": (
        {"file_path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"},
        ("replace_all",),
    ),
    "empty-old": ({"file_path": "f.txt", "old_string": "", "new_string": "b"}, ("old_string",)),
}


@clause("EDIT-PRES-02")
@pytest.mark.parametrize("case", sorted(NAMED))
def test_argument_errors_name_the_argument(
    tools: ToolClient, ws: Workspace, manifest: Manifest, case: str
) -> None:
    ws.put("f.txt", "a a\n")
    arguments, names = NAMED[case]
    result = expect_error(tools.call("edit", **arguments))
    expect_names_argument(result, manifest, "edit", *names)


@clause("EDIT-PRES-02")
@feature("edit.multi")
def test_edits_beside_old_string_names_them(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    ws.put("f.txt", "a\n")
    entries = [{"old_string": "a", "new_string": "c"}]
    result = expect_error(edit(tools, old_string="a", new_string="b", edits=entries))
    expect_names_argument(result, manifest, "edit", "edits", "old_string")


#: (file text, old_string, occurrence count, start lines of the first three occurrences)
AMBIGUOUS: dict[str, tuple[str, str, int, list[int]]] = {
    "three": ("x\ndup\nx\nx\ndup\nx\nx\nx\ndup\n", "dup", 3, [2, 5, 9]),
    "four": ("a\ndup\na\na\ndup\na\na\na\ndup\na\na\na\na\ndup\n", "dup", 4, [2, 5, 9]),
    "multi-line": ("k\nv\nk\nv\nz\nz\nk\nv\n", "k\nv", 3, [1, 3, 7]),
}


@clause("EDIT-PRES-03")
@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_ambiguity_gives_count_and_lines(tools: ToolClient, ws: Workspace, case: str) -> None:
    text, old, count, lines = AMBIGUOUS[case]
    ws.put("f.txt", text)
    result = expect_error(edit(tools, old_string=old, new_string="one"))
    expect_number(result, count, "the number of occurrences", ws.root)
    for line in lines:
        expect_number(result, line, f"the line where an occurrence starts ({line})", ws.root)


@clause("EDIT-PRES-03")
@feature("edit.fuzzy")
def test_fuzzy_ambiguity_gives_count_and_lines(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "x\nq = “a”\nr\nq = ‟a”\ns\nt\nq = „a”\n")
    result = expect_error(edit(tools, old_string='q = "a"', new_string="q = b"))
    expect_number(result, 3, "the number of occurrences", ws.root)
    for line in (2, 4, 7):
        expect_number(result, line, f"the line where an occurrence starts ({line})", ws.root)


@clause("EDIT-PRES-04")
@feature("edit.multi")
def test_overlap_names_both_edits(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "alpha beta gamma delta epsilon\n")
    entries = [
        {"old_string": "alpha", "new_string": "A"},
        {"old_string": "beta", "new_string": "B"},
        {"old_string": "gamma delta", "new_string": "X"},
        {"old_string": "delta epsilon", "new_string": "Y"},
    ]
    result = expect_error(edit(tools, edits=entries))
    text = masked_text(result, ws.root)
    named = [
        base
        for base in (0, 1)
        if mentions_number(text, 2 + base) and mentions_number(text, 3 + base)
    ]
    assert named, (
        "the error should name both overlapping edits (entries 2 and 3 counted from 0, or 3 "
        f"and 4 counted from 1); saw {shown(result)}"
    )


@clause("EDIT-PRES-05")
def test_missing_file_is_named(tools: ToolClient, ws: Workspace) -> None:
    result = expect_error(edit(tools, "missing_k2.txt", old_string="a", new_string="b"))
    expect_names_path(result, "missing_k2.txt", str(ws.root))


@clause("EDIT-PRES-05")
def test_directory_is_named(tools: ToolClient, ws: Workspace) -> None:
    ws.put("subdir_q7/x.txt", "a\n")
    result = expect_error(edit(tools, "subdir_q7", old_string="a", new_string="b"))
    expect_names_path(result, "subdir_q7", str(ws.root))


@clause("EDIT-PRES-05")
def test_not_found_names_the_file(tools: ToolClient, ws: Workspace) -> None:
    ws.put("target_z9.txt", "one\ntwo\n")
    result = expect_error(edit(tools, "target_z9.txt", old_string="three", new_string="3"))
    expect_names_path(result, "target_z9.txt", str(ws.root))


@clause("EDIT-PRES-06")
def test_not_found_suggests_reading_again(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "one\ntwo\n")
    result = expect_error(edit(tools, old_string="three", new_string="3"))
    text = masked_text(result, ws.root)
    assert READ_AGAIN.search(text), (
        "the error should suggest reading the file again (the word read, reread, re-read, "
        f"reading or a read tool's name); saw {shown(result)}"
    )
