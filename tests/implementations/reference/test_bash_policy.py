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

from pytest_agenttools.implementations.reference import bash, command_analysis, command_rules
from pytest_agenttools.implementations.reference.output_capture import NO_OUTPUT
from pytest_agenttools.implementations.reference.processes import Exit
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.tasks import Outcome
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from tests.support import WAIT_S


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
        (Outcome("aborted", Exit(0, None)), "killed"),
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


def test_the_analyze_method_classifies_the_command_it_is_given() -> None:
    analyze = ReferenceTools().method("bash/analyze")
    assert analyze is not None
    command = "git status && rm -rf build"
    assert analyze({"command": command}, {}) == command_rules.analyze(command)
    assert analyze({"command": "ls"}, {}) == command_rules.analyze("ls")
    assert analyze({"command": "ls"}, {})["class"] == command_analysis.analyze("ls")["class"]
    for params in ({"command": 7}, {}, ["ls"], None):
        with pytest.raises(ValueError, match=r"bash/analyze needs params\.command"):
            analyze(params, {})


def test_the_match_rule_method_matches_the_rule_it_is_given() -> None:
    match = ReferenceTools().method("bash/match_rule")
    assert match is not None
    params = {"rule": "Bash(go test:*)", "command": "go test ./..."}
    assert match(params, {}) == command_rules.match_rule("Bash(go test:*)", "go test ./...")
    assert match(params, {})["matches"] is True
    bad_params: list[Any] = [{"rule": "Bash(ls)"}, {"command": "ls"}, {"rule": 1, "command": "ls"}]
    for bad in [*bad_params, [], None]:
        with pytest.raises(ValueError, match=r"bash/match_rule needs params\.rule and params"):
            match(bad, {})


LONG = "x" * 50


@pytest.mark.parametrize(
    ("value", "maximum", "message"),
    [
        (None, 300, "bash: timeout must be a number of seconds."),
        (True, 300, "bash: timeout must be a number of seconds."),
        ("5", 300, "bash: timeout must be a number of seconds, not the string '5'."),
        (LONG, 300, f"bash: timeout must be a number of seconds, not the string {LONG[:40]!r}."),
        (
            10**400,
            300,
            "bash: timeout is too large; give at most 300 seconds; use run_in_background for "
            "longer commands.",
        ),
        (
            10**400,
            0.5,
            "bash: timeout is too large; give at most 0.5 seconds; use run_in_background for "
            "longer commands.",
        ),
        (10**400, 0, "bash: timeout is too large; give a finite number of seconds."),
        (
            float("nan"),
            300,
            "bash: timeout must be a positive, finite number of seconds; got nan.",
        ),
        (0, 300, "bash: timeout must be a positive, finite number of seconds; got 0."),
        (
            301,
            300,
            "bash: timeout 301 s is over the maximum of 300 seconds; use run_in_background for "
            "longer commands.",
        ),
        (
            2,
            1,
            "bash: timeout 2 s is over the maximum of 1 seconds; use run_in_background for "
            "longer commands.",
        ),
    ],
)
def test_a_bad_timeout_is_refused_in_these_words(value: Any, maximum: float, message: str) -> None:
    with pytest.raises(ToolError) as refused:
        bash.parse_timeout(value, maximum)
    assert (refused.value.code, refused.value.message) == ("invalid_argument", message)
    with pytest.raises(ToolError) as named:
        bash.parse_timeout(value, maximum, "task_output")
    assert named.value.message == "task_output" + message.removeprefix("bash")


@pytest.mark.parametrize("timeout", [6, 10**6])
def test_a_background_timeout_over_its_cap_is_not_told_to_use_run_in_background(
    tmp_path: Path, timeout: int
) -> None:
    tools = ReferenceTools({"bash.background_max_timeout_s": 5})
    try:
        arguments = {"command": "true", "run_in_background": True, "timeout": timeout}
        refused = tools.call("bash", arguments, str(tmp_path))
        foreground = tools.call("bash", {"command": "true", "timeout": 10**6}, str(tmp_path))
    finally:
        tools.shutdown()
    text = refused["content"][0]["text"]
    assert refused["isError"] and refused["details"]["error"] == "invalid_argument"
    assert "run_in_background" not in text, text
    assert text.endswith("; that is the cap of a background task (bash.background_max_timeout_s).")
    assert "over the maximum of 5 seconds" in text, text
    assert "use run_in_background" in foreground["content"][0]["text"]


def test_a_timeout_at_the_maximum_is_taken() -> None:
    assert bash.parse_timeout(300, 300) == 300.0
    assert bash.parse_timeout(0.5, 1) == 0.5


def test_a_poll_that_does_not_block_comes_back_at_once(tmp_path: Path) -> None:
    tools = ReferenceTools({"task_output.default_timeout_s": 600})
    try:
        started = tools.call(
            "bash", {"command": "sleep 60", "run_in_background": True}, str(tmp_path)
        )
        task_id = started["details"]["task_id"]
        result = tools.call("task_output", {"task_id": task_id, "block": False}, str(tmp_path))
        assert result["details"]["status"] == "running"
    finally:
        tools.shutdown()


def test_a_running_task_shows_its_output_so_far(tools: ReferenceTools, tmp_path: Path) -> None:
    go = tmp_path / "go"
    command = f"echo first; while [ ! -e {go} ]; do sleep 0.05; done"
    task_id = tools.call("bash", {"command": command, "run_in_background": True}, str(tmp_path))[
        "details"
    ]["task_id"]
    text = ""
    for _ in range(int(WAIT_S / 0.1)):
        result = tools.call("task_output", {"task_id": task_id, "timeout": 0.1}, str(tmp_path))
        text = result["content"][0]["text"]
        if text.startswith("first"):
            break
    assert text == f"first\n\n\n[Task {task_id} is still running.]", text
    details = result["details"]
    assert details["status"] == "running" and details["truncated"] is False
    assert "fullOutputPath" not in details and result["details"]["observation"]["running"]
    quiet = tools.call("task_output", {"task_id": task_id, "block": False}, str(tmp_path))
    assert quiet["content"][0]["text"] == f"{NO_OUTPUT}\n\n[Task {task_id} is still running.]"
    go.touch()


def test_a_running_task_with_more_output_than_shown_says_where_the_rest_is(
    tmp_path: Path,
) -> None:
    tools = ReferenceTools({"bash.output_max_bytes": 100})
    try:
        go = tmp_path / "go"
        command = f"seq 1 1000; while [ ! -e {go} ]; do sleep 0.05; done"
        task_id = tools.call(
            "bash", {"command": command, "run_in_background": True}, str(tmp_path)
        )["details"]["task_id"]
        for _ in range(int(WAIT_S / 0.1)):
            result = tools.call("task_output", {"task_id": task_id, "timeout": 0.1}, str(tmp_path))
            if result["details"]["truncated"]:
                break
        details = result["details"]
        assert details["truncated"] is True and details["status"] == "running"
        path = details["fullOutputPath"]
        assert path == details["observation"]["full_output_path"] and os.path.isfile(path)
        text = result["content"][0]["text"]
        assert f"Full output: {path}" in text
        assert text.endswith(f"[Task {task_id} is still running.]") and text.startswith("1\n")
        go.touch()
    finally:
        tools.shutdown()


@pytest.mark.parametrize(
    ("command", "shown"), [("printf '\\nhi \\n'", "\nhi \n"), ("printf 'hiX\\n'", "hiX\n")]
)
def test_a_finished_task_ends_its_text_with_its_status(
    tools: ReferenceTools, tmp_path: Path, command: str, shown: str
) -> None:
    """Only the newlines that end the output give way to the status line."""
    result = finished(tools, tmp_path, command)
    task_id = result["details"]["task_id"]
    assert result["content"][0]["text"] == f"{shown}\n[Task {task_id} completed.]"
    # shown whole and never announced: its output file is gone
    task = tools.services["bash.tasks"].get(task_id)
    assert task is not None and not os.path.exists(task.output.path)


class NoBash(bash.BashOps):
    """A machine without bash: neither /bin/bash nor bash on PATH."""

    def shell(self) -> str | None:
        return None


def test_without_bash_every_command_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    """BASH-SHELL-01: no bash means a refusal naming bash, never a run under /bin/sh."""
    box = ReferenceTools(ops={"bash": NoBash()})
    try:
        for arguments in ({}, {"run_in_background": True}):
            result = box.call("bash", {"command": "touch ran", **arguments}, str(tmp_path))
            assert result["isError"], result
            text = result["content"][0]["text"]
            assert "no bash found" in text and "nothing ran" in text, text
            assert result["details"]["observation"]["running"] is False
        assert not (tmp_path / "ran").exists()
    finally:
        box.shutdown()


def test_bash_is_found_on_path_when_bin_bash_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pytest_agenttools.implementations.reference import processes

    real = os.access
    monkeypatch.setattr(
        processes.os, "access", lambda p, m: False if p == "/bin/bash" else real(p, m)
    )
    monkeypatch.setenv("PATH", str(tmp_path))
    assert processes.find_bash() is None
    (tmp_path / "bash").symlink_to("/bin/bash")
    assert processes.find_bash() == str(tmp_path / "bash")
