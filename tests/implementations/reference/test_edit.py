"""The reference edit beyond the suite: one outcome on every adapter, and its code named by the
clauses it implements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools import ToolCall
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.spec.clauses import implementation_index, load

ENTRIES = ({"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"})


@pytest.mark.parametrize("container", [tuple, list], ids=["tuple", "list"])
def test_edits_as_tuple_or_list(reference: Any, tmp_path: Path, container: type) -> None:
    """A tuple is a list on the wire: the same call gives the same outcome in process and over
    stdio (the in-process adapter once passed the tuple raw and the reference refused it)."""
    (tmp_path / "f.txt").write_bytes(b"a c\n")
    call = ToolCall("edit", {"file_path": "f.txt", "edits": container(ENTRIES)}, str(tmp_path))
    result = reference.call(call, 60).with_call(call)
    assert not result.is_error, result.text
    assert (tmp_path / "f.txt").read_bytes() == b"b d\n"
    assert result.observation.replacements == 2


@pytest.mark.parametrize(
    ("arguments", "code", "named"),
    [
        ({"old_string": "a", "new_string": "b"}, "invalid_argument", "file_path"),
        ({"file_path": "f", "new_string": "b"}, "invalid_argument", "old_string"),
        ({"file_path": "f", "old_string": "", "new_string": "b"}, "empty_old_string", "old_string"),
        ({"file_path": "f", "old_string": "a", "new_string": "a"}, "no_change", "new_string"),
        (
            {"file_path": "f", "edits": [{"old_string": "a", "new_string": "a"}]},
            "no_change",
            "edits[0]",
        ),
        (
            {"file_path": "f", "edits": [{"old_string": "", "new_string": "a"}]},
            "empty_old_string",
            "edits[0]",
        ),
        ({"file_path": "f", "edits": [{"old_string": "a"}]}, "invalid_argument", "new_string"),
        ({"file_path": "f", "edits": []}, "invalid_argument", "edits"),
        ({"file_path": "f", "edits": [], "old_string": "a"}, "invalid_argument", "edits"),
        ({"file_path": "f", "edits": [{}], "replace_all": True}, "invalid_argument", "replace_all"),
    ],
)
def test_parse_checks_everything_in_one_pass(
    arguments: dict[str, Any], code: str, named: str
) -> None:
    with pytest.raises(ToolError) as info:
        edit.parse(arguments)
    assert info.value.code == code and named in info.value.message


def test_parse_keeps_the_shape() -> None:
    single = edit.parse({"file_path": "f", "old_string": "a", "new_string": "b"})
    assert single == edit.Request("f", (edit.Edit("a", "b", False),), multi=False)
    many = edit.parse(
        {"file_path": "f", "edits": [{"old_string": "a", "new_string": "b", "replace_all": True}]}
    )
    assert many.multi and many.edits == (edit.Edit("a", "b", True),)


def test_every_edit_clause_names_its_reference_code() -> None:
    index = implementation_index()
    missing = [c.id for c in load().active() if c.tool == "edit" and not index.get(c.id)]
    assert not missing, f"edit clauses no reference function names: {missing}"
