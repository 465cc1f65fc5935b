"""Shared by the broken bash implementations whose defect is a wrapper around the command: the
reference's bash, with each command put into ``template`` (at ``{command}``) before it runs."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class WrappedBash(BashOps):
    def __init__(self, template: str) -> None:
        self.template = template

    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        wrapped = self.template.format(command=command)
        return super().spawn(wrapped, cwd, env, keepalive=keepalive, grace=grace)


def wrapped_bash(template: str) -> ReferenceTools:
    """The reference with its bash wrapping every command in ``template``."""
    return ReferenceTools(ops={"bash": WrappedBash(template)})
