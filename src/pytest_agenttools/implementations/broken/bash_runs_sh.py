"""bash runs commands with ``/bin/sh -c`` (dash on Debian, as ``subprocess.run(shell=True)``
does): plain commands work, but arrays, ``[[ ]]``, brace expansion and process substitution in a
command the model wrote for bash fail or mean something else."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class PosixShell(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return Supervised(command, cwd, env, keepalive=keepalive, grace=grace, shell="/bin/sh")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": PosixShell()})


BROKEN = Broken(
    caught_by={"BASH-SHELL-01"},
    suite_modules=["test_bash_shell"],
    create=create,
)
