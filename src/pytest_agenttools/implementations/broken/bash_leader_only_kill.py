"""bash ends a timed-out command by signalling the shell's pid only, not its group or tree.

The shell dies; its children (a `sleep &`, a pipeline, a subshell) are orphaned and live on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.bash_group_kill_only import GroupOnlyProcess
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class LeaderOnlyProcess(GroupOnlyProcess):
    def _wait(self) -> None:
        self.keepalive = True  # and leaves whatever the shell started after a normal exit
        super()._wait()

    def end_leader(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            os.kill(self.proc.pid, signal.SIGKILL)

    def stop(self) -> None:
        if self._stopping or self.finished.is_set():
            return
        self._stopping = True
        threading.Thread(target=self.end_leader, daemon=True).start()


class LeaderOnlyOps(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return LeaderOnlyProcess(command, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": LeaderOnlyOps()})


BROKEN = Broken(
    caught_by={"BASH-KILL-01", "BASH-ABORT-02"},
    suite_modules=["test_bash_kill"],
    create=create,
)
