"""bash ends its commands on an orderly shutdown only: when the implementation's process is
killed hard, the supervisors stay and the commands run on."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Untied(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return Supervised(command, cwd, env, keepalive=keepalive, grace=grace, tied=False)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": Untied()})


BROKEN = Broken(
    caught_by={"BASH-SHUT-05"},
    suite_modules=["test_bash_lifecycle"],
    create=create,
)
