"""Editing a file that does not exist creates it with new_string instead of failing."""

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import text_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    request = edit.parse(arguments)
    path = paths.expand(request.raw_path, ctx.cwd, ctx.env)
    if os.path.lexists(path):
        return edit.run(arguments, ctx)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(request.edits[0].new)
    observation = {"path": path, "replacements": 1}
    return text_result(f"Created {path}.", observation=observation)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-NF-02"},
    suite_modules=["test_edit"],
    create=create,
)
