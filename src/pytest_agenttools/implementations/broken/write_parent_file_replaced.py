"""write clears the way: when a component of the parent path is a regular file, it deletes
that file and makes the directory, so the write succeeds and the user's file is gone."""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import write
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    path = arguments.get("path") if isinstance(arguments, dict) else None
    if isinstance(path, str) and "\0" not in path:
        parent = os.path.dirname(os.path.join(ctx.cwd, path))
        while parent and parent != os.path.dirname(parent):
            if os.path.isfile(parent) and not os.path.islink(parent):
                os.unlink(parent)
                break
            parent = os.path.dirname(parent)
    return write.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-PARENT-02"},
    suite_modules=["test_write"],
    create=create,
)
