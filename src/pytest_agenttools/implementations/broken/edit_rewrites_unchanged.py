"""old_string equal to new_string is "applied": the file is rewritten unchanged and the call
reports success."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, fsport, paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import text_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    old = arguments.get("old_string") if isinstance(arguments, dict) else None
    if not isinstance(old, str) or old == "" or old != arguments.get("new_string"):
        return edit.run(arguments, ctx)
    path = paths.expand(str(arguments.get("file_path")), ctx.cwd, ctx.env)
    with ctx.queue.hold(path) as target:
        with open(target, "rb") as handle:
            data = handle.read()
        fsport.atomic_replace(target, data, 0o644)
    return text_result(f"Updated {path}.", observation={"path": path, "replacements": 1})


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-NOCHANGE-02"},
    suite_modules=["test_edit"],
    create=create,
)
