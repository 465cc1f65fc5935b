"""Gives the command a pipe as its standard input and never writes to it or closes it, as a
tool that keeps ``stdin=PIPE`` open for an interactive mode does: a command that reads its
input (``cat``, a prompt, ``read``) waits for input that never comes, until its timeout."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken._wrapped_bash import wrapped_bash
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: the command with its stdin from a pipe whose writer stays silent (for 30 s, so nothing of
#: it outlives the check for long)
OPEN_PIPE = "{{\n{command}\n}} < <(exec sleep 30)"


def create() -> ReferenceTools:
    return wrapped_bash(OPEN_PIPE)


BROKEN = Broken(
    caught_by={"BASH-PROC-03"},
    suite_modules=["test_bash"],
    create=create,
)
