"""The reference edit beyond the suite: one outcome on every adapter, and its code named by the
clauses it implements."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools import ToolCall
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
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


def test_a_file_over_the_declared_size_is_refused_naming_the_limit(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("alpha\n" * 100)
    tools = ReferenceTools({"edit.max_file_bytes": 500})
    assert tools.manifest()["limits"]["edit.max_file_bytes"] == 500
    arguments = {
        "file_path": "f.txt",
        "old_string": "alpha",
        "new_string": "beta",
        "replace_all": True,
    }
    result = tools.call("edit", arguments, str(tmp_path))
    assert result["isError"] and result["details"]["error"] == "too_large", result
    message = result["content"][0]["text"]
    assert "600 bytes" in message and "500 bytes" in message and "edit.max_file_bytes" in message
    assert target.read_text() == "alpha\n" * 100
    assert not ReferenceTools().call("edit", arguments, str(tmp_path))["isError"]


def test_a_cancel_is_answered_while_the_edit_is_still_working(tmp_path: Path) -> None:
    """The planning step never looks at the cancel switch (a stand-in for a huge file's
    search): the call still answers "aborted", and the abandoned work never writes."""
    target = tmp_path / "f.txt"
    target.write_text("alpha\n")
    started, release = threading.Event(), threading.Event()

    def stuck_plan(*args: Any) -> Any:
        started.set()
        release.wait(60)
        return edit.plan(*args)

    tools = ReferenceTools(
        runs={"edit": lambda a, ctx: edit.run(a, ctx, steps=edit.Steps(plan=stuck_plan))}
    )
    cancel = threading.Event()
    answers: list[Any] = []
    arguments = {"file_path": "f.txt", "old_string": "alpha", "new_string": "beta"}
    caller = threading.Thread(
        target=lambda: answers.append(tools.call("edit", arguments, str(tmp_path), None, cancel))
    )
    caller.start()
    assert started.wait(30)
    cancel.set()
    caller.join(30)
    try:
        assert not caller.is_alive(), "the cancel waited for the edit's work"
        assert answers[0]["isError"] and answers[0]["details"]["error"] == "aborted", answers
    finally:
        release.set()
    deadline = threading.Event()
    deadline.wait(0.5)  # the abandoned work finishes: it must not write
    assert target.read_text() == "alpha\n"
