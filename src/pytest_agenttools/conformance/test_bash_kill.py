"""bash: ending commands. No survivor after a timeout or an abort, traps run, TERM-ignorers die.

Every command records the pids of what it starts in ``pids``; after the call returns, psutil must
find none of them alive, nor any process working inside the workspace. How the command ended is
read from the observation, never from the text.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    complete,
    describe,
    expect_no_survivor,
    fast,
    implementation_processes,
    is_alive,
    kill_all,
    process_trees,
    recorded_pids,
    render_tree,
    survivors,
    tree_size,
    wait_for_file,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.harness.assertions import bash_obs, expect_error, expect_ok, precondition
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.markers import clause, long


def expect_timed_out(tools: ToolClient, result: Any) -> None:
    """The command ended by its timeout (followed through a soft-yield handover if any)."""
    result, obs, handed_over = complete(tools, result)
    if not handed_over:
        expect_error(result, what="a timed-out command")
    assert obs.timed_out, f"the observation should say timed_out: {dict(obs.raw)!r:.400}"


def expect_ended_by_timeout(tools: ToolClient, result: Any) -> None:
    """The command was ended by its timeout, as its observation says: a precondition of the kill
    clauses. That a timeout is an error, and says so, is BASH-TO-02's rule, not theirs."""
    _, obs, _ = complete(tools, result)
    with precondition("BASH-TO-02", "the command must be ended by its timeout"):
        assert obs.timed_out, f"the observation should say timed_out: {dict(obs.raw)!r:.400}"


TREE = """
echo $$ >> pids
sleep 60 & echo $! >> pids
( echo $BASHPID >> pids; sleep 60 ) &
sleep 60 | cat & echo $! >> pids
bash -c 'echo $$ >> pids; sleep 60 & echo $! >> pids; wait' &
sleep 60
"""


@clause("BASH-KILL-01")
@long(1)
def test_timeout_leaves_no_survivor(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    expect_ended_by_timeout(tools, tools.call("bash", command=TREE, timeout=1))
    assert len(recorded_pids(ws.root)) >= 5, "the tree did not start in time to be checked"
    expect_no_survivor(ws.root, "timeout")


@clause("BASH-KILL-02")
@long(1)
def test_term_trap_runs(tools: ToolClient, ws: Workspace) -> None:
    fast(tools, 2.0)
    command = "trap 'echo cleaned > trap.txt; exit 0' TERM; echo $$ >> pids; sleep 60 & wait"
    expect_ended_by_timeout(tools, tools.call("bash", command=command, timeout=1))
    assert ws.exists("trap.txt"), "the TERM trap never ran: the command was not sent SIGTERM"
    assert ws.get("trap.txt") == b"cleaned\n"
    expect_no_survivor(ws.root, "trap")


@clause("BASH-KILL-03")
@long(2)
def test_term_ignorer_dies_after_grace(tools: ToolClient, ws: Workspace) -> None:
    grace = fast(tools, 1.0)
    command = "trap '' TERM; echo $$ >> pids; sleep 60 & echo $! >> pids; while :; do wait; done"
    timeout = 1.0
    died: dict[int, float] = {}
    seen: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        pids = wait_for_file(ws.file("pids"), minimum=2)
        seen.append(time.monotonic())  # the command runs: its timeout started before this
        while not stop.is_set() and len(died) < len(pids):
            for pid in pids:
                if pid not in died and not is_alive(pid):
                    died[pid] = time.monotonic()
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started = time.monotonic()
    _, obs, _ = complete(tools, tools.call("bash", command=command, timeout=timeout))
    returned = time.monotonic()
    watcher.join(scaled(5))
    stop.set()
    assert obs.timed_out, f"the observation should say timed_out: {dict(obs.raw)!r:.400}"
    expect_no_survivor(ws.root, "TERM ignored")
    assert died, "the watcher saw no process die"
    expired_by = (seen[0] if seen else started) + timeout
    late = max(died.values()) - expired_by
    # the grace is the spec's; the second past it is room for the kill and the watcher's poll,
    # which a busy machine stretches (harness.clock)
    assert late <= grace + scaled(1.0), (
        f"a TERM-ignoring process died {late:.2f} s after the timeout"
    )
    assert max(died.values()) <= returned + scaled(0.1), (
        "the call returned before the tree was gone"
    )


ESCAPEES = """
echo $$ >> pids
setsid bash -c 'echo $$ >> pids; sleep 60' &
( bash -c 'echo $$ >> pids; trap "" TERM; sleep 60 & echo $! >> pids; wait' & ) &
set -m; bash -c 'echo $$ >> pids; sleep 60' & set +m
setsid bash -c '( setsid bash -c "echo \\$\\$ >> pids; sleep 60" & )' &
sleep 60
"""


@clause("BASH-KILL-04")
@long(2)
def test_escapees_are_ended(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    expect_timed_out(tools, tools.call("bash", command=ESCAPEES, timeout=1.5))
    assert len(recorded_pids(ws.root)) >= 5, "the escapees did not start in time to be checked"
    expect_no_survivor(ws.root, "setsid / double fork")


@clause("BASH-KILL-04")
def test_abort_ends_escapees(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    # the escapee writes its own pid once setsid has made it a session of its own: `$!` is
    # written at the fork, before it has left the group, and a cancel that came first let a
    # tool that kills the process group only pass (pi did, now and then, in CI)
    command = "echo $$ >> pids; setsid sh -c 'echo $$ >> pids; exec sleep 60' & sleep 60 & wait"
    pending = tools.submit("bash", command=command, timeout=60)
    assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2, "the command did not start"
    pending.cancel()
    assert bash_obs(pending.result(30)).aborted
    expect_no_survivor(ws.root, "abort with a setsid child")


#: trees run side by side in one example: each waits out its own timeout, so three at once
#: cover three trees in the time of one
TREES_AT_ONCE = 3


@clause("BASH-KILL-05")
@long(5)
@settings(max_examples=examples(3), phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(forest=st.lists(process_trees, min_size=TREES_AT_ONCE, max_size=TREES_AT_ONCE))
def test_random_trees_leave_no_survivor(tools: ToolClient, ws: Workspace, forest: Any) -> None:
    fast(tools, 0.3)
    roots = [ws.subdir().root for _ in forest]
    pending = [
        tools.submit("bash", command=render_tree(root, trees), timeout=1, _cwd=str(root))
        for root, trees in zip(roots, forest, strict=True)
    ]
    for call in pending:
        expect_timed_out(tools, call.result(60))
    for root, trees in zip(roots, forest, strict=True):
        alive = survivors(root, recorded_pids(root))
        shown = describe(alive)
        kill_all(alive)
        assert not alive, f"survivors of a tree of {tree_size(trees)} scripts {trees}: {shown}"


@clause("BASH-ABORT-02")
def test_abort(tools: ToolClient, ws: Workspace) -> None:
    fast(tools, 2.0)
    command = (
        "trap 'echo aborted > trap.txt; exit 0' TERM; echo $$ >> pids; "
        "sleep 60 & echo $! >> pids; sleep 60 & wait"
    )
    pending = tools.submit("bash", command=command, timeout=60)
    assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2, "the command did not start"
    pending.cancel()
    result = pending.result(30)
    expect_error(result, what="an aborted command")
    assert bash_obs(result).aborted, f"the observation should say aborted: {bash_obs(result).raw}"
    assert ws.exists("trap.txt"), "abort must send SIGTERM first so the trap runs"
    expect_no_survivor(ws.root, "abort")


@clause("BASH-KEEP-01")
def test_leftovers_of_finished_command(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    # a first command starts the helpers an implementation starts lazily (the reference's fork
    # server), so that they are among its own processes, not survivors of the command
    tools.call("bash", command="true", timeout=20)
    spare = implementation_processes(tools)
    result = tools.call("bash", command="sleep 60 & echo $! >> pids; echo done", timeout=20)
    obs = bash_obs(expect_ok(result))
    assert obs.exit_code == 0 and obs.output.startswith("done")
    expect_no_survivor(ws.root, "normal exit with a background job", spare=spare)


@clause("BASH-KEEP-02")
def test_keepalive_survives(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    command = "nohup sleep 60 >/dev/null 2>&1 & echo $! >> pids; echo started"
    try:
        obs = bash_obs(expect_ok(tools.call("bash", command=command, timeout=20)))
        assert obs.exit_code == 0 and "started" in obs.output
        pids = recorded_pids(ws.root)
        assert pids and all(is_alive(p) for p in pids), "the keepalive process was ended"
    finally:
        kill_all(recorded_pids(ws.root))
