"""The reference, but its process changes into the call's directory to run a command and stays
there, as some servers do (served over stdio: ``agenttools serve --impl``)."""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    os.chdir(ctx.cwd)
    return bash.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"bash": run})
