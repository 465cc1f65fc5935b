"""bash lets a keepalive command's leftovers (`nohup server &`) go when the command ends: its
supervisor exits, nobody tracks them, and they outlive the implementation's shutdown."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Forgets(Supervised):
    """When the command is over, its supervisor goes (and with it all track of the leftovers),
    before the call answers."""

    def wait(self, timeout: float | None = None) -> bool:
        over = super().wait(timeout)
        if over and not self.gone.is_set():
            with contextlib.suppress(OSError):
                os.kill(self.supervisor_pid, signal.SIGKILL)
            self.gone.wait(5)
        return over


class ForgetsOps(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return Forgets(command, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": ForgetsOps()})


BROKEN = Broken(
    caught_by={"BASH-SHUT-03"},
    suite_modules=["test_bash_lifecycle"],
    create=create,
)
