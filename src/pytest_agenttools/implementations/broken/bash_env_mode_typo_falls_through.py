"""A misspelt AGENTTOOLS_BASH_ENV_SANITIZE is skipped: the mode falls through to the CI flags or
to off, as if the variable were unset."""

import dataclasses
import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.env_sanitize import MODE_VARIABLE, MODES
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    env = dict(ctx.env if ctx.env is not None else os.environ)
    if env.get(MODE_VARIABLE, "").strip().lower() not in ("", *MODES):
        del env[MODE_VARIABLE]
        ctx = dataclasses.replace(ctx, env=env)
    return bash.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"bash": run})


BROKEN = Broken(
    caught_by={"BASH-ENV-07"},
    suite_modules=["test_bash_env"],
    create=create,
)
