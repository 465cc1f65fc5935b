"""bash ends a command by signalling its process group only: no subreaper, no descendant search.

`setsid` children and double-forked daemons live on after a timeout, which is what most agents
do and what BASH-KILL-04 exists to catch, and after the implementation's shutdown (BASH-SHUT-04).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess, Exit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class GroupOnlyProcess:
    """The CommandProcess interface over a plain Popen in its own session; ends the group only."""

    def __init__(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str] | None,
        *,
        keepalive: bool,
        grace: float,
    ) -> None:
        read_end, write_end = os.pipe()
        self.output_fd = read_end
        self.grace = grace
        self.keepalive = keepalive
        self.exit: Exit | None = None
        self.finished = threading.Event()
        self._stopping = False
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=write_end,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
        os.close(write_end)
        self.leader_pid: int | None = self.proc.pid
        threading.Thread(target=self._wait, daemon=True).start()

    @property
    def alive(self) -> bool:
        if not self.finished.is_set():
            return True
        try:
            os.killpg(self.proc.pid, 0)
        except OSError:
            return False
        return True

    def _wait(self) -> None:
        code = self.proc.wait()
        if not self.keepalive and not self._stopping:
            self.end_group(signal.SIGTERM)
        self.exit = Exit(code, None) if code >= 0 else Exit(None, -code)
        self.finished.set()

    def end_group(self, first: int) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, first)
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline:
            try:
                os.killpg(self.proc.pid, 0)
            except OSError:
                return
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def stop(self) -> None:
        if self._stopping or not self.alive:
            return
        self._stopping = True
        threading.Thread(target=self.end_group, args=(signal.SIGTERM,), daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def wait_gone(self, timeout: float | None = None) -> bool:
        deadline = time.monotonic() + (timeout if timeout is not None else 3600.0)
        while self.alive and time.monotonic() < deadline:
            time.sleep(0.02)
        return not self.alive


class GroupOnlyOps(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return GroupOnlyProcess(command, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": GroupOnlyOps()})


BROKEN = Broken(
    caught_by={"BASH-KILL-04", "BASH-SHUT-04"},
    suite_modules=["test_bash_kill", "test_bash_lifecycle"],
    create=create,
)
