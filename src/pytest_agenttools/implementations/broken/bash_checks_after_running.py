"""bash runs the command first and checks the other arguments afterwards: a call refused for a
bad `run_in_background` or an unknown argument has already run."""

from __future__ import annotations

import subprocess
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if isinstance(command, str) and command.strip():
        subprocess.run(["bash", "-c", command], cwd=ctx.cwd, timeout=30, check=False)
        arguments = {**arguments, "command": "true"}
    return bash.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"bash": run})


BROKEN = Broken(
    caught_by={"BASH-ARG-02"},
    suite_modules=["test_bash"],
    create=create,
)
