"""bash: ending commands. No survivor after a timeout or an abort, traps run, TERM-ignorers die.

Every command records the pids of what it starts in ``pids``; after the call returns, psutil must
find none of them alive, nor any process working inside the workspace.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from hypothesis import Phase, given, settings

from pytest_agenttools.assertions import expect_error, expect_ok
from pytest_agenttools.markers import clause

from .bash_strategies import (
    describe,
    is_alive,
    kill_all,
    process_trees,
    recorded_pids,
    render_tree,
    survivors,
    wait_for_file,
)

GRACE = 0.5


def fast(tools: Any, grace: float = GRACE) -> float:
    """A short kill grace when configurable; the grace in force either way."""
    applied = tools.configure(**{"bash.kill_grace_s": grace})
    declared = tools.manifest.limits.get("bash.kill_grace_s", 0.0)
    return float(applied.get("bash.kill_grace_s", declared))


def expect_no_survivor(ws: Any, what: str) -> None:
    pids = recorded_pids(ws.root)
    alive = survivors(ws.root, pids)
    shown = describe(alive)
    kill_all(alive)
    assert not alive, f"{what}: processes still alive after the call returned: {shown}"


TREE = """
echo $$ >> pids
sleep 60 & echo $! >> pids
( echo $BASHPID >> pids; sleep 60 ) &
sleep 60 | cat & echo $! >> pids
bash -c 'echo $$ >> pids; sleep 60 & echo $! >> pids; wait' &
sleep 60
"""


@clause("BASH-KILL-01")
def test_timeout_leaves_no_survivor(tools: Any, ws: Any) -> None:
    fast(tools)
    result = tools.call("bash", command=TREE, timeout=1)
    expect_error(result, "timed out")
    assert len(recorded_pids(ws.root)) >= 5, "the tree did not start in time to be checked"
    expect_no_survivor(ws, "timeout")


@clause("BASH-KILL-02")
def test_term_trap_runs(tools: Any, ws: Any) -> None:
    fast(tools, 2.0)
    command = "trap 'echo cleaned > trap.txt; exit 0' TERM; echo $$ >> pids; sleep 60 & wait"
    expect_error(tools.call("bash", command=command, timeout=1), "timed out")
    assert ws.exists("trap.txt"), "the TERM trap never ran: the command was not sent SIGTERM"
    assert ws.get("trap.txt") == b"cleaned\n"
    expect_no_survivor(ws, "trap")


@clause("BASH-KILL-03")
def test_term_ignorer_dies_after_grace(tools: Any, ws: Any) -> None:
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
    result = tools.call("bash", command=command, timeout=timeout)
    returned = time.monotonic()
    watcher.join(5)
    stop.set()
    expect_error(result, "timed out")
    expect_no_survivor(ws, "TERM ignored")
    assert died, "the watcher saw no process die"
    expired_by = (seen[0] if seen else started) + timeout
    late = max(died.values()) - expired_by
    assert late <= grace + 1.0, f"a TERM-ignoring process died {late:.2f} s after the timeout"
    assert max(died.values()) <= returned + 0.1, "the call returned before the tree was gone"


ESCAPEES = """
echo $$ >> pids
setsid bash -c 'echo $$ >> pids; sleep 60' &
( bash -c 'echo $$ >> pids; trap "" TERM; sleep 60 & echo $! >> pids; wait' & ) &
set -m; bash -c 'echo $$ >> pids; sleep 60' & set +m
setsid bash -c '( setsid bash -c "echo \\$\\$ >> pids; sleep 60" & )' &
sleep 60
"""


@clause("BASH-KILL-04")
def test_escapees_are_ended(tools: Any, ws: Any) -> None:
    fast(tools)
    expect_error(tools.call("bash", command=ESCAPEES, timeout=1.5), "timed out")
    assert len(recorded_pids(ws.root)) >= 5, "the escapees did not start in time to be checked"
    expect_no_survivor(ws, "setsid / double fork")


@clause("BASH-KILL-05")
@settings(max_examples=8, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(trees=process_trees)
def test_random_trees_leave_no_survivor(tools: Any, ws: Any, trees: Any) -> None:
    fast(tools, 0.3)
    root = ws.subdir()
    command = render_tree(root.root, trees)
    result = tools.call("bash", command=command, timeout=1, _cwd=str(root.root))
    expect_error(result, "timed out")
    pids = recorded_pids(root.root)
    alive = survivors(root.root, pids)
    shown = describe(alive)
    kill_all(alive)
    assert not alive, f"survivors of {trees}: {shown}"


@clause("BASH-ABORT-01")
def test_abort(tools: Any, ws: Any) -> None:
    fast(tools, 2.0)
    command = (
        "trap 'echo aborted > trap.txt; exit 0' TERM; echo $$ >> pids; "
        "setsid sleep 60 & echo $! >> pids; sleep 60 & wait"
    )
    pending = tools.submit("bash", command=command, timeout=60)
    assert len(wait_for_file(ws.file("pids"), minimum=2)) >= 2, "the command did not start"
    pending.cancel()
    result = pending.result(30)
    expect_error(result, "Command aborted")
    assert ws.exists("trap.txt"), "abort must send SIGTERM first so the trap runs"
    expect_no_survivor(ws, "abort")


@clause("BASH-KEEP-01")
def test_leftovers_of_finished_command(tools: Any, ws: Any) -> None:
    fast(tools)
    result = tools.call("bash", command="sleep 60 & echo $! >> pids; echo done", timeout=20)
    expect_ok(result)
    assert result.text.startswith("done")
    expect_no_survivor(ws, "normal exit with a background job")


@clause("BASH-KEEP-02")
def test_keepalive_survives(tools: Any, ws: Any) -> None:
    fast(tools)
    command = "nohup sleep 60 >/dev/null 2>&1 & echo $! >> pids; echo started"
    try:
        result = expect_ok(tools.call("bash", command=command, timeout=20))
        assert "started" in result.text
        pids = recorded_pids(ws.root)
        assert pids and all(is_alive(p) for p in pids), "the keepalive process was ended"
    finally:
        kill_all(recorded_pids(ws.root))
