"""The reference's tasks, judged directly rather than through a tool call.

What the bash clauses see only through timing or never (the outcome a task records, when its
output file may go, how shutdown waits and whom it ends) is the reference's policy; these tests
pin it, with real supervised commands where a process is the point and a recording stand-in
where the point is what a task asks of its process or its output.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.conformance.bash_strategies import is_alive
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.output_capture import View
from pytest_agenttools.implementations.reference.processes import Exit
from pytest_agenttools.implementations.reference.tasks import Outcome, Task, TaskTable
from tests.support import WAIT_S, numbers_in

OPS = BashOps()
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ONLY_HERE": "1"}


def start(
    table: TaskTable,
    command: str,
    cwd: Path,
    *,
    timeout: float | None = None,
    grace: float = 1.0,
    ops: Any = OPS,
    file_max_bytes: int = 1 << 20,
) -> Task:
    task = Task(
        table.new_id(),
        command,
        str(cwd),
        ENV,
        timeout=timeout,
        grace=grace,
        keepalive=False,
        ops=ops,
        file_max_bytes=file_max_bytes,
    )
    table.track(task)
    return task


@pytest.fixture
def table() -> Iterator[TaskTable]:
    tasks = TaskTable()
    yield tasks
    tasks.shutdown()


def test_a_task_keeps_what_it_was_started_with(table: TaskTable, tmp_path: Path) -> None:
    """A variant that restarts a task (broken/bash_restarts_on_yield) starts it from these."""
    task = start(table, "true", tmp_path, timeout=7.0, grace=0.5, file_max_bytes=4096)
    assert (task.id, task.command, task.cwd, task.env) == ("bash-1", "true", str(tmp_path), ENV)
    assert (task.timeout, task.grace, task.keepalive) == (7.0, 0.5, False)
    assert (task.ops, task.file_max_bytes) == (OPS, 4096)
    assert task.background is False and task.announced is False and task.env_removed == ()
    assert task.deadline == pytest.approx(task.started_at + 7.0)
    assert task.wait(WAIT_S)


def test_ids_count_from_one(table: TaskTable) -> None:
    assert [table.new_id() for _ in range(3)] == ["bash-1", "bash-2", "bash-3"]


def test_the_command_gets_exactly_the_given_environment(table: TaskTable, tmp_path: Path) -> None:
    task = start(table, 'echo "${ONLY_HERE-unset} ${HOME-unset}"', tmp_path)
    assert task.wait(WAIT_S)
    assert task.read_new(1000, 100, "bytes").text == "1 unset\n"


def test_without_a_timeout_a_task_runs_to_its_end(table: TaskTable, tmp_path: Path) -> None:
    task = start(table, "exit 3", tmp_path, timeout=None)
    assert task.deadline is None
    assert task.wait(WAIT_S) and task.outcome is not None
    assert task.outcome.reason == "exit" and task.outcome.exit == Exit(3, None)


def test_the_first_reason_to_stop_is_kept(table: TaskTable, tmp_path: Path) -> None:
    task = start(table, "sleep 30", tmp_path)
    task.stop("aborted")
    task.stop("shutdown")
    assert task.wait(WAIT_S) and task.outcome is not None
    assert task.outcome.reason == "aborted" and task.outcome.exit.signal is not None


def test_a_stop_after_the_end_changes_nothing(table: TaskTable, tmp_path: Path) -> None:
    task = start(table, "exit 5", tmp_path)
    assert task.wait(WAIT_S)
    task.stop("aborted")
    assert task.outcome == Outcome("exit", Exit(5, None))


def test_the_watcher_thread_is_named_and_never_holds_the_host_open(
    table: TaskTable, tmp_path: Path
) -> None:
    task = start(table, "sleep 30", tmp_path)
    watchers = [t for t in threading.enumerate() if t.name == f"agenttools-{task.id}"]
    assert len(watchers) == 1 and watchers[0].daemon
    task.stop("aborted")
    assert task.wait(WAIT_S)


class Recorded:
    """A stand-in for a command process and its output capture that records what it is asked."""

    def __init__(self, *, polls_before_end: int = 3, size: int = 0) -> None:
        self.output_fd = -1
        self.leader_pid = None
        self.exit: Exit | None = None  # never reported: the supervisor died without a word
        self.finished = threading.Event()
        self.waits: list[float | None] = []
        self.gone_waits: list[float | None] = []
        self.views: list[tuple[Any, ...]] = []
        self.path = "/nonexistent/agenttools-recorded"
        self.size = size
        self._polls = polls_before_end

    # CommandProcess
    @property
    def alive(self) -> bool:
        return not self.finished.is_set()

    def stop(self) -> None:
        pass

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        self._polls -= 1
        if self._polls <= 0:
            self.finished.set()
        return self.finished.wait(timeout)

    def wait_gone(self, timeout: float | None = None) -> bool:
        self.gone_waits.append(timeout)
        return False

    # OutputCapture
    def finish(self) -> None:
        pass

    def discard(self) -> None:
        pass

    def view(self, *args: Any) -> View:
        self.views.append(args)
        self.size += 10  # output that arrives while the view is made
        return View("", False, 0, 0)


class RecordedOps:
    def __init__(self, recorded: Recorded) -> None:
        self.recorded = recorded

    def spawn(self, command: str, cwd: str, env: Mapping[str, str], **_: Any) -> Recorded:
        return self.recorded

    def capture(self, read_fd: int, file_max_bytes: int) -> Recorded:
        return self.recorded


def test_the_deadline_is_looked_at_twenty_times_a_second(tmp_path: Path) -> None:
    recorded = Recorded(polls_before_end=4)
    task = start(TaskTable(), "x", tmp_path, timeout=60, ops=RecordedOps(recorded))
    assert task.wait(WAIT_S)
    assert len(recorded.waits) == 4
    assert all(w is not None and 0 < w <= 0.05 for w in recorded.waits), recorded.waits


def test_an_end_never_reported_counts_as_killed(tmp_path: Path) -> None:
    task = start(TaskTable(), "x", tmp_path, ops=RecordedOps(Recorded(polls_before_end=1)))
    assert task.wait(WAIT_S) and task.outcome is not None
    assert task.outcome.exit == Exit(None, 9)


def test_a_read_ends_where_its_cursor_moves_to(tmp_path: Path) -> None:
    """Output that arrives while a view is made is shown by the next read, once."""
    recorded = Recorded(polls_before_end=1, size=25)
    task = start(TaskTable(), "x", tmp_path, ops=RecordedOps(recorded))
    task.read_new(100, 10, "chars")
    task.read_new(100, 10, "chars")
    assert recorded.views == [(0, 100, 10, 25, "chars"), (25, 100, 10, 35, "chars")]
    assert task.cursor == 35


def test_new_output_only_in_the_limits_unit(table: TaskTable, tmp_path: Path) -> None:
    task = start(table, "printf 'éééééééééé'", tmp_path)  # 10 characters, 20 bytes
    assert task.wait(WAIT_S)
    view = task.read_new(12, 100, "chars")
    assert view.text == "é" * 10 and not view.truncated
    assert task.read_new(12, 100, "chars").text == ""


def test_a_whole_output_file_goes_and_an_announced_one_stays(
    table: TaskTable, tmp_path: Path
) -> None:
    whole = start(table, "echo short", tmp_path)
    cut = start(table, "seq 1 1000", tmp_path)
    assert whole.wait(WAIT_S) and cut.wait(WAIT_S)
    assert not whole.read_new(1000, 100, "bytes").truncated and not whole.announced
    assert cut.read_new(100, 100, "bytes").truncated and cut.announced
    for task in (whole, cut):
        table.forget_file(task)
    assert not os.path.exists(whole.output.path)
    assert os.path.exists(cut.output.path), "an announced path must stay readable"
    table.shutdown()
    assert not os.path.exists(cut.output.path), "shutdown removes the files it kept"


def test_shutdown_ends_every_task_and_waits_until_they_are_gone(tmp_path: Path) -> None:
    table = TaskTable()
    ignoring = "trap '' TERM; echo $$ >> pids; sleep 30 & echo $! >> pids; wait"
    tasks = [start(table, ignoring, tmp_path, grace=1.0) for _ in range(2)]
    table.adopt(tasks[1])  # one in the background table, one only tracked
    pids = numbers_in(tmp_path / "pids", 4)
    os.unlink(tasks[0].output.path)  # removed behind the table's back: no error at shutdown
    table.shutdown()
    assert all(not task.process.alive for task in tasks), "shutdown returned before the end"
    alive = [p for p in pids if is_alive(p)]
    assert alive == [], f"processes outlived shutdown: {alive}"
    for task in tasks:
        assert task.wait(WAIT_S) and task.outcome is not None
        assert task.outcome.reason == "shutdown"
        assert not os.path.exists(task.output.path)


@pytest.mark.parametrize("wait", [None, 0.5])
def test_shutdown_bounds_its_wait(tmp_path: Path, wait: float | None) -> None:
    """A task that never goes costs shutdown its bound (10 s by default), not a hang."""
    table = TaskTable()
    recorded = Recorded(polls_before_end=10**9)
    start(table, "x", tmp_path, ops=RecordedOps(recorded))
    start(table, "x", tmp_path, ops=RecordedOps(recorded))
    bound = 10.0 if wait is None else wait
    if wait is None:
        table.shutdown()
    else:
        table.shutdown(wait)
    assert len(recorded.gone_waits) == 2
    assert all(w is not None and 0 <= w <= bound for w in recorded.gone_waits)
    first = recorded.gone_waits[0]
    assert first is not None and first > bound - 5.0, "the first wait gets (almost) all of it"
    recorded.finished.set()
