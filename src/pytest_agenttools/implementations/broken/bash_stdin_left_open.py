"""Gives the command a pipe as its standard input and never writes to it or closes it, as a
tool that keeps ``stdin=PIPE`` open for an interactive mode does: a command that reads its
input (``cat``, a prompt, ``read``) waits for input that never comes, until its timeout."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: the command with its stdin from a pipe whose writer stays silent (for 30 s, so nothing of
#: it outlives the check for long)
OPEN_PIPE = "{{\n{command}\n}} < <(exec sleep 30)"


class StdinLeftOpen(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        wrapped = OPEN_PIPE.format(command=command)
        return super().spawn(wrapped, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": StdinLeftOpen()})


BROKEN = Broken(
    caught_by={"BASH-PROC-03"},
    suite_modules=["test_bash"],
    create=create,
)
