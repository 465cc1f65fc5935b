"""write resolves `..` lexically: `link/../x` lands beside the link, not where the shell puts it."""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import paths, write
from pytest_agenttools.implementations.reference.arguments import check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("write", write.PARAMS, arguments)
    raw = paths.check_raw(args["path"])
    path = os.path.normpath(os.path.join(ctx.cwd, raw))
    with ctx.queue.hold(path) as target:
        return write._write_locked(path, target, args["content"], ctx, write.OPS)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"write": run})


BROKEN = Broken(
    caught_by={"WRITE-PATH-01"},
    suite_modules=["test_write"],
    create=create,
)
