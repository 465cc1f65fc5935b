"""Walks to ``offset`` one line at a time and does not stop at the end of the file: a read
with offset 10^12 spins until it is cancelled instead of answering that the file is shorter."""

import contextlib
import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import read as reference_read
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def walking_read(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    offset = arguments.get("offset") if isinstance(arguments, dict) else None
    name = arguments.get("path") if isinstance(arguments, dict) else None
    if type(offset) is int and offset > 1 and isinstance(name, str):
        path = os.path.join(ctx.cwd, name)
        with contextlib.suppress(OSError), open(path, "rb") as handle:
            for _ in range(offset - 1):  # past the end too: readline() keeps giving b""
                if ctx.cancel.is_set():
                    raise ToolError("aborted", f"Reading {path} was cancelled.")
                handle.readline()
    return reference_read.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"read": walking_read})


BROKEN = Broken(
    caught_by={"ROBUST-EXTREME-01"},
    suite_modules=["test_robust_extreme"],
    # the calls it fails wait for the kit's deadline; a short one keeps the self-check quick
    pytest_args=["--agenttools-call-timeout=3"],
    create=create,
)
