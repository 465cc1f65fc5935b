"""Commands as tasks: every command runs as one, in the foreground or in the background.

A foreground call waits on its task; when the task outlives the soft-yield window it is handed
over in place (same processes, same output file, same deadline) to the task table and the call
returns its id (BASH-YIELD-01, BASH-YIELD-02). ``task_output`` reads the output a task produced
since the last read (BASH-BG-02). The table ends every task with its tree when the
implementation shuts down, and the leftovers of keepalive commands too (BASH-SHUT-02,
BASH-SHUT-03).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from pytest_agenttools.implementations.reference.output_capture import OutputCapture, View
from pytest_agenttools.implementations.reference.processes import CommandProcess, Exit


@dataclass(frozen=True)
class Outcome:
    """Why a task ended: ``exit`` normally, or ``timeout`` / ``aborted`` / ``shutdown``."""

    reason: str
    exit: Exit


class TaskOps(Protocol):
    """How a task starts its command and captures its output (``bash.BashOps``)."""

    def spawn(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str],
        *,
        keepalive: bool,
        grace: float,
    ) -> CommandProcess: ...

    def capture(self, read_fd: int, file_max_bytes: int) -> OutputCapture: ...


class Task:
    """One command with its supervisor, output file, deadline and read cursor."""

    def __init__(
        self,
        task_id: str,
        command: str,
        cwd: str,
        env: Mapping[str, str],
        *,
        timeout: float | None,
        grace: float,
        keepalive: bool,
        ops: TaskOps,
        file_max_bytes: int,
        background: bool = False,
    ) -> None:
        self.id = task_id
        self.command = command
        self.cwd = cwd
        self.env = env
        self.grace = grace
        self.keepalive = keepalive
        self.timeout = timeout
        self.started_at = time.monotonic()
        self.deadline = self.started_at + timeout if timeout is not None else None
        self.ops = ops
        self.file_max_bytes = file_max_bytes
        self.background = background
        self.process = ops.spawn(command, cwd, env, keepalive=keepalive, grace=grace)
        self.output = ops.capture(self.process.output_fd, file_max_bytes)
        self.cursor = 0
        #: the full-output path was shown to the model: the file must stay
        self.announced = False
        self.env_removed: tuple[str, ...] = ()
        self.outcome: Outcome | None = None
        self._reason = "exit"
        self._lock = threading.Lock()
        self.done = threading.Event()
        threading.Thread(target=self._watch, daemon=True, name=f"agenttools-{task_id}").start()

    def _watch(self) -> None:
        while not self.process.wait(0.05):  # BASH-TO-02, BASH-BG-05, BASH-YIELD-02
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.stop("timeout")
        self.output.finish()
        exit = self.process.exit or Exit(None, 9)
        self.outcome = Outcome(self._reason, exit)
        self.done.set()

    def stop(self, reason: str) -> None:
        """End the task's tree (SIGTERM, grace, SIGKILL); the first reason given is kept."""
        with self._lock:
            if self._reason == "exit" and not self.process.finished.is_set():
                self._reason = reason
        self.process.stop()

    def wait(self, timeout: float | None) -> bool:
        return self.done.wait(timeout)

    def read_new(self, max_size: int, max_lines: int, unit: str) -> View:
        """The output since the previous read (a bounded view); moves the cursor.

        Nothing new (a finished task polled again) reads no file: BASH-BG-06.
        """
        end = self.output.size
        view = self.output.view(self.cursor, max_size, max_lines, end, unit)
        self.cursor = max(self.cursor, end)
        if view.truncated:
            self.announced = True
        return view


class TaskTable:
    """The background tasks of one implementation instance."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._running: list[Task] = []
        self._files: set[str] = set()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def new_id(self) -> str:
        return f"bash-{next(self._ids)}"

    def track(self, task: Task) -> None:
        """Every task, foreground ones included, so that shutdown can end it (and the
        leftovers of a keepalive command, whose supervisor stays alive)."""
        with self._lock:
            self._running = [t for t in self._running if t.process.alive]
            self._running.append(task)
            self._files.add(task.output.path)

    def forget_file(self, task: Task) -> None:
        """The output was shown whole and its path never announced: the file is not needed."""
        if task.announced:
            return
        with self._lock:
            self._files.discard(task.output.path)
        task.output.discard()

    def adopt(self, task: Task) -> None:
        with self._lock:
            self._tasks[task.id] = task

    def get(self, task_id: str) -> Task | None:
        with self._lock:
            return self._tasks.get(task_id)

    def shutdown(self, wait: float = 10.0) -> None:
        """End every running task with its tree, wait for them, and remove their output files."""
        with self._lock:
            tasks = list({id(t): t for t in [*self._tasks.values(), *self._running]}.values())
            files, self._files = self._files, set()
        for task in tasks:
            task.stop("shutdown")  # a detached keepalive command too: its leftovers end
        deadline = time.monotonic() + wait
        for task in tasks:
            task.process.wait_gone(max(0.0, deadline - time.monotonic()))
        for path in files:
            with contextlib.suppress(OSError):
                os.unlink(path)
