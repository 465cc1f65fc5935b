"""bash ends a timed-out command by signalling the shell's pid only, not its group or tree.

The shell dies; its children (a `sleep &`, a pipeline, a subshell) are orphaned and live on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

from pytest_agenttools.reference_impl import tasks
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from .bash_group_kill_only import GroupOnlyProcess

SUITE_MODULES = ["test_bash_kill"]
CAUGHT_BY = {"BASH-KILL-01", "BASH-ABORT-01"}


class LeaderOnlyProcess(GroupOnlyProcess):
    _stopping: bool

    def _wait(self) -> None:
        self.keepalive = True  # and leaves whatever the shell started after a normal exit
        super()._wait()

    def end_leader(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.leader_pid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            os.kill(self.leader_pid, signal.SIGKILL)

    def stop(self) -> None:
        if self._stopping or self.finished.is_set():
            return
        self._stopping = True
        threading.Thread(target=self.end_leader, daemon=True).start()


def create() -> ReferenceTools:
    setattr(tasks, "Supervised", LeaderOnlyProcess)  # the defect, for this process only
    return ReferenceTools()
