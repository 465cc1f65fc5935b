"""bash background tasks: run_in_background, task_output, timeouts, soft-yield handover.

A task's state is read from the observations of ``task_output`` (``running``, ``exit_code``,
``timed_out``) and its output from their ``output``; the text only in BASH-PRES-05.
"""

from __future__ import annotations

import math
import time

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    HUGE_TIMEOUT_S,
    drain,
    expect_no_survivor,
    fast,
    recorded_pids,
    shown_output,
    task_id_of,
)
from pytest_agenttools.harness.assertions import bash_obs, expect_error, expect_in_order, expect_ok
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.markers import clause, feature, long


def soft_yield(tools: ToolClient, window: float) -> float:
    """A short soft-yield window when configurable; the window in force either way."""
    applied = tools.configure(**{"bash.soft_yield_s": window})
    if "bash.soft_yield_s" in applied:
        return float(applied["bash.soft_yield_s"])
    declared = tools.limit("bash.soft_yield_s")
    assert declared is not None, (
        "bash.soft_yield is declared but bash.soft_yield_s is not: the suite cannot know when a "
        "command is handed over"
    )
    return float(declared.value)


@clause("BASH-BG-01")
def test_background_returns_task_id(tools: ToolClient, ws: Workspace) -> None:
    command = "echo hi; while [ ! -e go ]; do sleep 0.05; done; echo bye; exit 3"
    started = tools.call("bash", command=command, run_in_background=True)
    task_id = task_id_of(started)
    assert bash_obs(started).running, "a task that was just started is still running"
    assert not ws.exists("go")
    ws.put("go", "")
    output, results = drain(tools, task_id)
    last = bash_obs(results[-1])
    assert last.exit_code == 3 and not last.running, f"exit 3 should be observed: {dict(last.raw)}"
    assert output == "hi\nbye\n", f"the polls together should show exactly the output: {output!r}"


@clause("BASH-BG-02")
def test_task_output_is_incremental(tools: ToolClient, ws: Workspace) -> None:
    command = "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two"
    task_id = task_id_of(tools.call("bash", command=command, run_in_background=True))
    seen = ""
    deadline = time.monotonic() + scaled(20)
    while "one" not in seen and time.monotonic() < deadline:
        seen += shown_output(bash_obs(tools.call("task_output", task_id=task_id, block=False)))
        time.sleep(0.05)
    assert seen == "one\n", f"task_output should have shown the first line once: {seen!r}"
    ws.put("go", "")
    output, results = drain(tools, task_id)
    assert bash_obs(results[-1]).exit_code == 0
    assert output == "two\n", f"output shown twice or lost: {output!r}"
    expect_error(tools.call("task_output", task_id="no-such-task"), what="an unknown task")


@clause("BASH-BG-05")
@long(1)
def test_background_timeout_ends_task(tools: ToolClient, ws: Workspace) -> None:
    grace = fast(tools)
    command = "echo $$ >> pids; sleep 60 & echo $! >> pids; wait"
    started = tools.call("bash", command=command, run_in_background=True, timeout=1)
    task_id = task_id_of(started)
    assert bash_obs(started).timeout_s == 1, "the task's observation should give its timeout"
    # ended by its timeout and the kill grace, with room for a loaded machine; a task that runs
    # on (its 60 s sleep) fails here, not after the default 30 s of polling
    _, results = drain(tools, task_id, timeout=1 + grace + 5)
    last = bash_obs(results[-1])
    assert last.timed_out and not last.running, f"task_output should say timed_out: {last.raw}"
    expect_no_survivor(ws.root, "background timeout")


def _declared(tools: ToolClient, name: str) -> float | None:
    limit = tools.limit(name)
    return float(limit.value) if limit is not None else None


@clause("BASH-BG-05")
def test_background_default_is_bounded(tools: ToolClient) -> None:
    default = _declared(tools, "bash.background_default_timeout_s")
    cap = _declared(tools, "bash.background_max_timeout_s")
    started = tools.call("bash", command="true", run_in_background=True)
    applied = bash_obs(started).timeout_s
    drain(tools, task_id_of(started))
    assert applied is not None and math.isfinite(applied) and applied > 0, (
        f"a background task that names no timeout must still have a finite one: {applied!r}"
    )
    if default is not None:
        assert default > 0, f"bash.background_default_timeout_s must be above 0, is {default}"
        expected = min(default, cap) if cap else default
        assert applied == expected, (
            f"a task naming no timeout ran under {applied} s; the declared default is {default} s"
            + (f" (cap {cap} s)" if cap else "")
        )
    if cap:
        assert applied <= cap, f"the default {applied} s is above the background cap {cap} s"


@clause("BASH-BG-05")
def test_background_request_is_capped(tools: ToolClient, ws: Workspace) -> None:
    cap = _declared(tools, "bash.background_max_timeout_s")
    asked = tools.call("bash", command="touch ran", run_in_background=True, timeout=HUGE_TIMEOUT_S)
    if asked.is_error:
        assert not bash_obs(asked).running
        time.sleep(0.3)
        assert not ws.exists("ran"), "the task was refused but ran anyway"
        return
    applied = bash_obs(asked).timeout_s
    drain(tools, task_id_of(asked))
    assert applied is not None and math.isfinite(applied), (
        f"the task's observation should give the finite timeout applied: {applied!r}"
    )
    if cap == 0:  # declared: no tool-level cap, a finite request applies as asked
        assert applied == HUGE_TIMEOUT_S, f"with no cap, {HUGE_TIMEOUT_S} s applied as {applied}"
    elif cap is not None:
        assert applied <= cap, (
            f"a background timeout of {HUGE_TIMEOUT_S} s applied as {applied} s, over the "
            f"declared cap of {cap} s (bash.background_max_timeout_s; declare 0 for no cap)"
        )
    else:
        assert applied < HUGE_TIMEOUT_S, (
            f"a background timeout of {HUGE_TIMEOUT_S} s applied as asked: the implementation "
            "has no cap on background timeouts, or does not declare it (declare "
            "bash.background_max_timeout_s; 0 says: no cap)"
        )
        again = tools.call("bash", command="true", run_in_background=True, timeout=applied * 2)
        if not again.is_error:
            drain(tools, task_id_of(again))
            assert bash_obs(again).timeout_s == applied, (
                f"a cap of {applied} s was inferred, but {applied * 2} s applied as "
                f"{bash_obs(again).timeout_s}"
            )


@clause("BASH-BG-06")
def test_finished_task_polled_again(tools: ToolClient) -> None:
    task_id = task_id_of(tools.call("bash", command="echo x; exit 4", run_in_background=True))
    output, results = drain(tools, task_id)
    assert output == "x\n" and bash_obs(results[-1]).exit_code == 4
    for attempt in (1, 2):
        again = tools.call("task_output", task_id=task_id, block=True, timeout=1)
        expect_ok(again, f"poll {attempt} of a finished task")
        obs = bash_obs(again)
        assert not obs.running and obs.exit_code == 4, f"poll {attempt}: {dict(obs.raw)}"
        assert shown_output(obs) == "", f"poll {attempt} showed output again: {obs.output!r}"


@clause("BASH-YIELD-01")
def test_soft_yield_hands_over(tools: ToolClient, ws: Workspace) -> None:
    window = soft_yield(tools, 0.5)
    command = (
        "echo start >> starts; echo $$ >> pids; echo first; "
        "while [ ! -e go ]; do sleep 0.05; done; echo second"
    )
    result = tools.call("bash", command=command, timeout=max(60, window * 4))
    task_id = task_id_of(result)
    assert bash_obs(result).running, "a handed-over command is still running"
    pids = recorded_pids(ws.root)
    ws.put("go", "")
    output, results = drain(tools, task_id)
    assert bash_obs(results[-1]).exit_code == 0, bash_obs(results[-1]).raw
    assert ws.get("starts") == b"start\n", "the command was started more than once"
    assert recorded_pids(ws.root) == pids, "a second shell ran: the task was restarted"
    assert output == "first\nsecond\n", f"output lost in the handover: {output!r}"


@clause("BASH-YIELD-02")
@long(1.5)
def test_handed_over_keeps_timeout(tools: ToolClient, ws: Workspace) -> None:
    window = soft_yield(tools, 0.3)
    fast(tools)
    command = "echo $$ >> pids; sleep 60 & echo $! >> pids; wait"
    task_id = task_id_of(tools.call("bash", command=command, timeout=window + 1.2))
    _, results = drain(tools, task_id, timeout=window + 30)
    assert bash_obs(results[-1]).timed_out, f"status: {bash_obs(results[-1]).raw}"
    expect_no_survivor(ws.root, "the timed-out task")


@clause("BASH-PRES-05")
def test_task_texts(tools: ToolClient) -> None:
    started = tools.call(
        "bash", command="echo task-line-1; echo task-line-2", run_in_background=True
    )
    task_id = task_id_of(started)
    assert task_id in started.text, (
        f"the text must give the task id {task_id!r} so the model can poll it: {started.text!r}"
    )
    polled = tools.call("task_output", task_id=task_id, block=True, timeout=10)
    obs = bash_obs(polled)
    expect_in_order(polled, [shown_output(obs).rstrip("\n")], "the task's new output")
    if obs.running:
        drain(tools, task_id)


@clause("BASH-PRES-05")
@feature("bash.soft_yield")
def test_handover_text(tools: ToolClient, ws: Workspace) -> None:
    soft_yield(tools, 0.3)
    result = tools.call("bash", command="while [ ! -e go ]; do sleep 0.05; done", timeout=60)
    task_id = task_id_of(result)
    ws.put("go", "")
    drain(tools, task_id)
    assert task_id in result.text, (
        f"the handover must name the task id {task_id!r}: {result.text!r}"
    )
