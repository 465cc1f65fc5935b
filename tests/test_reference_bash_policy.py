"""The reference bash tool's own policy: what no clause may judge, pinned here.

The clauses judge the observation every correct tool shares. The reference also answers with
details of its own (``status``, ``exitCode``, ``timedOut`` ...), names the tool in each refusal
and cleans up its data directory at shutdown; another correct tool may do none of that, so these
tests of the reference stand outside the suite.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_agenttools.reference_impl import bash
from pytest_agenttools.reference_impl.processes import Exit
from pytest_agenttools.reference_impl.tasks import Outcome
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

#: generous: a loaded machine must not turn a wait into a verdict
WAIT_S = 30


@pytest.fixture
def tools() -> Iterator[ReferenceTools]:
    box = ReferenceTools({"bash.kill_grace_s": 0.2})
    yield box
    box.shutdown()


def finished(tools: ReferenceTools, cwd: Path, command: str, **arguments: Any) -> dict[str, Any]:
    """task_output's answer once a background task has ended."""
    started = tools.call(
        "bash", {"command": command, "run_in_background": True, **arguments}, str(cwd)
    )
    task_id = started["details"]["task_id"]
    result = tools.call("task_output", {"task_id": task_id, "timeout": WAIT_S}, str(cwd))
    assert result["details"]["status"] != "running", result
    return result


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        (None, "running"),
        (Outcome("exit", Exit(0, None)), "completed"),
        (Outcome("exit", Exit(1, None)), "failed"),
        (Outcome("exit", Exit(255, None)), "failed"),
        (Outcome("exit", Exit(None, 9)), "killed"),
        (Outcome("timeout", Exit(None, 15)), "timed_out"),
        (Outcome("aborted", Exit(None, 15)), "killed"),
        (Outcome("shutdown", Exit(None, 15)), "killed"),
        (Outcome("shutdown", Exit(0, None)), "killed"),
        (Outcome("timeout", Exit(0, None)), "timed_out"),
    ],
)
def test_status_names_how_a_task_stands(outcome: Outcome | None, status: str) -> None:
    task: Any = SimpleNamespace(outcome=outcome)  # all that _status reads of a task
    assert bash._status(task) == status


@pytest.mark.parametrize(
    ("command", "status", "extra"),
    [
        ("true", "completed", {"exitCode": 0}),
        ("exit 3", "failed", {"exitCode": 3}),
        ("kill -KILL $$", "killed", {"signal": "SIGKILL"}),
        ("sleep 30", "timed_out", {"timedOut": True}),
    ],
)
def test_task_output_details_say_how_the_task_ended(
    tools: ReferenceTools, tmp_path: Path, command: str, status: str, extra: dict[str, Any]
) -> None:
    timeout = {"timeout": 0.3} if status == "timed_out" else {}
    result = finished(tools, tmp_path, command, **timeout)
    details = result["details"]
    assert details["status"] == status
    assert {key: details.get(key) for key in extra} == extra
    assert details["task_id"].startswith("bash-")
    text = result["content"][0]["text"]
    assert text.endswith(f"[Task {details['task_id']} {status.replace('_', ' ')}.]")


def test_a_refused_poll_names_the_task_it_was_given(tools: ReferenceTools, tmp_path: Path) -> None:
    unknown = tools.call("task_output", {"task_id": "bash-99"}, str(tmp_path))
    assert unknown["isError"] and unknown["details"]["error"] == "not_found"
    assert unknown["details"]["observation"]["task_id"] == "bash-99"
    assert "task_output" in unknown["content"][0]["text"]
    typed = tools.call("task_output", {"task_id": 99}, str(tmp_path))
    assert typed["isError"] and "task_id" not in typed["details"]["observation"]


@pytest.mark.parametrize("arguments", [["bash-1"], "bash-1", None])
def test_arguments_that_are_not_an_object_are_refused_not_crashed_on(
    tools: ReferenceTools, tmp_path: Path, arguments: Any
) -> None:
    result = tools.call("task_output", arguments, str(tmp_path))
    assert result["isError"] and result["details"]["error"] == "invalid_argument", result
    assert "task_id" not in result["details"]["observation"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"task_id": "bash-1", "block": "yes"},
        {"task_id": "bash-1", "timeout": -1},
        {"task_id": "bash-1", "timeout": 10**6},
    ],
)
def test_each_refusal_names_task_output(
    tools: ReferenceTools, tmp_path: Path, arguments: dict[str, Any]
) -> None:
    tools.call("bash", {"command": "true", "run_in_background": True}, str(tmp_path))
    result = tools.call("task_output", arguments, str(tmp_path))
    text = result["content"][0]["text"]
    assert result["isError"] and text.startswith("task_output"), text
    assert result["details"]["observation"]["task_id"] == "bash-1"


def test_a_given_poll_timeout_is_used(tmp_path: Path) -> None:
    """A short timeout is waited out, not the default: the poll comes back with the task
    still running, where the default (set longer than the task) would see it end."""
    tools = ReferenceTools({"task_output.default_timeout_s": 600})
    try:
        started = tools.call(
            "bash", {"command": "sleep 60", "run_in_background": True}, str(tmp_path)
        )
        task_id = started["details"]["task_id"]
        result = tools.call("task_output", {"task_id": task_id, "timeout": 0.2}, str(tmp_path))
        assert result["details"]["status"] == "running"
    finally:
        tools.shutdown()


def test_shutdown_removes_the_data_directory(tmp_path: Path) -> None:
    tools = ReferenceTools()
    result = tools.call("bash", {"command": "true"}, str(tmp_path))
    trash = result["details"]["observation"]["trash_dir"]
    root = os.path.dirname(trash)
    assert os.path.isdir(os.path.join(root, "shims"))
    tools.shutdown()
    assert not os.path.exists(root), "the shim and trash directory outlived shutdown"
