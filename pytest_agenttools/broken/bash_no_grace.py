"""bash ends a command with SIGKILL at once (as pi does): no SIGTERM, no grace, traps never run."""

from __future__ import annotations

import contextlib
import os
import signal

from pytest_agenttools.reference_impl import processes, tasks
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash_kill"]
CAUGHT_BY = {"BASH-KILL-02", "BASH-ABORT-01"}


class NoGrace(processes.Supervised):
    def stop(self) -> None:
        if self.leader_pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.leader_pid, signal.SIGKILL)
        super().stop()


def create() -> ReferenceTools:
    setattr(tasks, "Supervised", NoGrace)  # the defect, for this process only
    return ReferenceTools()
