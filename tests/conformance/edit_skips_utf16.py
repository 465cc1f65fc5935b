"""The reference, but an edit of a UTF-16 file reports success and leaves the file unchanged."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference import edit, paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import text_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    path = paths.expand(arguments["file_path"], ctx.cwd, ctx.env)
    with open(path, "rb") as handle:
        if handle.read(2) == b"\xff\xfe":
            return text_result(f"Edited {path}.", observation={"path": path, "replacements": 1})
    return edit.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})
