"""bash background tasks: run_in_background, task_output, soft-yield handover, shutdown."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_agenttools.assertions import expect_error, expect_ok
from pytest_agenttools.contract import ToolCall
from pytest_agenttools.markers import clause
from pytest_agenttools.session import get_session

from .bash_strategies import describe, kill_all, recorded_pids, survivors, wait_for_file


def task_id_of(result: Any) -> str:
    expect_ok(result)
    task_id = result.details.get("task_id")
    assert isinstance(task_id, str) and task_id, f"no details.task_id: {result.details}"
    return task_id


def drain(tools: Any, task_id: str, timeout: float = 30.0) -> tuple[str, Any]:
    """Every task_output text until the task is no longer running, joined; and the last result."""
    texts = []
    deadline = time.monotonic() + timeout
    while True:
        result = expect_ok(tools.call("task_output", task_id=task_id, block=True, timeout=5))
        texts.append(result.text)
        if result.details.get("status") != "running" or time.monotonic() > deadline:
            return "".join(texts), result


@clause("BASH-BG-01")
def test_background_returns_task_id(tools: Any, ws: Any) -> None:
    command = "echo hi; while [ ! -e go ]; do sleep 0.05; done; echo bye; exit 3"
    task_id = task_id_of(tools.call("bash", command=command, run_in_background=True))
    assert not ws.exists("go")
    ws.put("go", "")
    text, last = drain(tools, task_id)
    assert last.details.get("status") == "failed", f"status after exit 3: {last.details}"
    assert "hi" in text and "bye" in text


@clause("BASH-BG-02")
def test_task_output_is_incremental(tools: Any, ws: Any) -> None:
    command = "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two"
    task_id = task_id_of(tools.call("bash", command=command, run_in_background=True))
    seen = ""
    deadline = time.monotonic() + 20
    while "one" not in seen and time.monotonic() < deadline:
        seen += tools.call("task_output", task_id=task_id, block=False).text
        time.sleep(0.05)
    assert "one" in seen, "task_output never showed the first line"
    ws.put("go", "")
    text, last = drain(tools, task_id)
    assert last.details.get("status") == "completed"
    assert "two" in text and "one" not in text, f"output shown twice or lost: {text!r}"
    expect_error(tools.call("task_output", task_id="no-such-task"), "no-such-task")


@clause("BASH-YIELD-01")
def test_soft_yield_hands_over(tools: Any, ws: Any) -> None:
    applied = tools.configure(**{"bash.soft_yield_s": 0.5})
    if "bash.soft_yield_s" not in applied:
        pytest.skip("bash.soft_yield_s is not configurable; the declared window is too long")
    command = (
        "echo start >> starts; echo $$ >> pids; echo first; "
        "while [ ! -e go ]; do sleep 0.05; done; echo second"
    )
    result = tools.call("bash", command=command, timeout=60)
    task_id = task_id_of(result)
    pids = recorded_pids(ws.root)
    ws.put("go", "")
    text, last = drain(tools, task_id)
    assert last.details.get("status") == "completed", last.details
    assert ws.get("starts") == b"start\n", "the command was started more than once"
    assert recorded_pids(ws.root) == pids, "a second shell ran: the task was restarted"
    assert text.index("first") < text.index("second"), f"output lost in the handover: {text!r}"


@clause("BASH-YIELD-02")
def test_handed_over_keeps_timeout(tools: Any, ws: Any) -> None:
    applied = tools.configure(**{"bash.soft_yield_s": 0.3, "bash.kill_grace_s": 0.5})
    if "bash.soft_yield_s" not in applied:
        pytest.skip("bash.soft_yield_s is not configurable; the declared window is too long")
    command = "echo $$ >> pids; sleep 60 & echo $! >> pids; wait"
    task_id = task_id_of(tools.call("bash", command=command, timeout=1.5))
    _, last = drain(tools, task_id)
    assert last.details.get("status") == "timed_out", f"status: {last.details}"
    alive = survivors(ws.root, recorded_pids(ws.root))
    shown = describe(alive)
    kill_all(alive)
    assert not alive, f"the timed-out task left {shown}"


def _second_instance(config: Any) -> Any:
    session = get_session(config)
    settings = {
        "impl": session.settings.impl,
        "cmd": session.settings.cmd,
        "manifest": session.manifest_override,
        "call_timeout": session.settings.call_timeout,
    }
    adapter = config.hook.pytest_agenttools_make_adapter(config=config, settings=settings)
    adapter.start()
    return adapter


@clause("BASH-SHUT-01")
def test_shutdown_ends_tasks(pytestconfig: Any, tools: Any, ws: Any) -> None:
    adapter = _second_instance(pytestconfig)
    try:
        adapter.configure({"bash.kill_grace_s": 0.5})
        command = "echo $$ >> pids; setsid sleep 60 & echo $! >> pids; sleep 60 & wait"
        call = ToolCall("bash", {"command": command, "run_in_background": True}, str(ws.root))
        expect_ok(adapter.call(call, 30))
        assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2
    finally:
        adapter.close()
    alive = survivors(ws.root, recorded_pids(ws.root), settle=2.0)
    shown = describe(alive)
    kill_all(alive)
    assert not alive, f"shutdown left background processes: {shown}"
