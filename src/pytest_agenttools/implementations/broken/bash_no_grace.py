"""bash ends a command with SIGKILL at once (as pi does): no SIGTERM, no grace, traps never run."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoGrace(Supervised):
    def stop(self) -> None:
        if self.leader_pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.leader_pid, signal.SIGKILL)
        super().stop()


class NoGraceOps(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return NoGrace(command, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": NoGraceOps()})


BROKEN = Broken(
    caught_by={"BASH-KILL-02", "BASH-ABORT-02"},
    suite_modules=["test_bash_kill"],
    create=create,
)
