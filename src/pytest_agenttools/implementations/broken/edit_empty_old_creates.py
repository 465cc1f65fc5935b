"""An edit with an empty old_string on a missing path creates the file with new_string (the
"create with edit" idiom); every other missing-file edit fails as it should."""

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import text_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if not isinstance(arguments, dict) or arguments.get("old_string") != "":
        return edit.run(arguments, ctx)
    path = paths.expand(str(arguments.get("file_path")), ctx.cwd, ctx.env)
    if os.path.lexists(path):
        return edit.run(arguments, ctx)
    with open(path, "w", encoding="utf-8") as handle:  # the defect
        handle.write(str(arguments.get("new_string", "")))
    return text_result(f"Created {path}.", observation={"path": path, "replacements": 1})


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-NF-02"},
    suite_modules=["test_edit"],
    create=create,
)
