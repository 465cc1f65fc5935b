"""bash and the implementation's life: shutdown ends tasks and kept-alive leftovers; a hard kill
of the implementation's process takes its commands with it.

Each test starts an instance of its own (the session's instance stays up), so that shutting it
down or killing it touches nothing else.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from pytest_agenttools import ToolCall, ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    UNDECLARED_GRACE_S,
    expect_no_survivor,
    hosted_instance,
    recorded_pids,
    second_instance,
    wait_for_file,
)
from pytest_agenttools.harness.assertions import bash_obs
from pytest_agenttools.harness.markers import clause

GRACE = 0.5


def _short_grace(adapter: Any, tools: ToolClient) -> float:
    if "bash.kill_grace_s" in tools.manifest.settings:
        adapter.configure({"bash.kill_grace_s": GRACE})
        return GRACE
    declared = tools.limit("bash.kill_grace_s")
    return float(declared.value) if declared else UNDECLARED_GRACE_S


def _run(adapter: Any, ws: Workspace, command: str, **arguments: Any) -> Any:
    call = ToolCall("bash", {"command": command, **arguments}, str(ws.root))
    result = adapter.call(call, 60)
    assert not result.is_error, f"{command!r} failed: {result.text[:300]!r}"
    return result


@clause("BASH-SHUT-02")
def test_shutdown_ends_background_tasks(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, tools: ToolClient, ws: Workspace
) -> None:
    with second_instance(pytestconfig, request.addfinalizer) as adapter:
        grace = _short_grace(adapter, tools)
        _run(
            adapter, ws, "echo $$ >> pids; sleep 60 & echo $! >> pids; wait", run_in_background=True
        )
        assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2, "the task did not start"
    expect_no_survivor(ws.root, "shutdown with a background task", settle=grace + 2)


@clause("BASH-SHUT-03")
def test_shutdown_ends_kept_alive(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, tools: ToolClient, ws: Workspace
) -> None:
    with second_instance(pytestconfig, request.addfinalizer) as adapter:
        grace = _short_grace(adapter, tools)
        for command in (
            "nohup sleep 60 >/dev/null 2>&1 & echo $! >> pids; echo started",
            "sleep 60 >/dev/null 2>&1 & echo $! >> pids; disown; echo started",
        ):
            result = _run(adapter, ws, command, timeout=30)
            assert bash_obs(result).exit_code == 0
        assert len(recorded_pids(ws.root)) == 2
    expect_no_survivor(ws.root, "shutdown after keepalive commands", settle=grace + 2)


@clause("BASH-SHUT-04")
def test_shutdown_ends_escapees(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, tools: ToolClient, ws: Workspace
) -> None:
    with second_instance(pytestconfig, request.addfinalizer) as adapter:
        grace = _short_grace(adapter, tools)
        # each escapee writes its own pid once setsid has made it a session of its own (`$!`
        # is written at the fork, before it leaves the group, which a group kill could still
        # reach), and the command ends only after that
        escapee = "setsid sh -c 'echo $$ >> pids; exec sleep 60'"
        _run(
            adapter,
            ws,
            f"{escapee} >/dev/null 2>&1 < /dev/null & "
            "until [ -s pids ]; do sleep 0.01; done; echo started",
            timeout=30,
        )
        if "bash.background" in tools.manifest.features:
            _run(adapter, ws, f"{escapee} & wait", run_in_background=True)
            wait_for_file(ws.file("pids"), minimum=2)
    expect_no_survivor(ws.root, "shutdown with setsid escapees", settle=grace + 2)


@clause("BASH-SHUT-05")
def test_hard_kill_takes_commands_along(
    pytestconfig: pytest.Config, tools: ToolClient, ws: Workspace
) -> None:
    with hosted_instance(pytestconfig) as host:
        grace = _short_grace(host, tools)
        call = ToolCall(
            "bash",
            {"command": "echo $$ >> pids; sleep 60 & echo $! >> pids; sleep 60 | cat; wait"},
            str(ws.root),
        )
        host.start_call(call)
        assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2, "the command did not start"
        os.kill(host.pid, signal.SIGKILL)
        expect_no_survivor(ws.root, "SIGKILL of the implementation", settle=grace + 5)
