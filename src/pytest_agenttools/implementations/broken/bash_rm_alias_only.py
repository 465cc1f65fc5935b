"""bash makes `rm` recoverable with a shell function in front of each command: what the model
types is covered, but `xargs rm`, `command rm`, `find -exec rm` and friends run the system rm."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import rm_shim
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class FunctionOnly(BashOps):
    def __init__(self) -> None:
        self.shim = ""

    def rm_shim(self, services: dict[str, Any]) -> str:
        self.shim = os.path.join(rm_shim.ensure(services), "rm")
        empty = os.path.join(rm_shim.trash_dir(services), os.pardir, "not-on-path")
        os.makedirs(empty, exist_ok=True)
        return os.path.realpath(empty)  # the shim's own directory stays off PATH

    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        wrapped = f'rm() {{ {shlex.quote(self.shim)} "$@"; }}\n{command}'
        return super().spawn(wrapped, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": FunctionOnly()})


BROKEN = Broken(
    caught_by={"BASH-RM-01", "BASH-RM-02"},
    suite_modules=["test_bash_rm"],
    create=create,
)
