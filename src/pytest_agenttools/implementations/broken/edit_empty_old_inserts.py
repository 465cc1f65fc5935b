"""An empty old_string matches at the start of the file: new_string is inserted there (what
`text.replace("", new, 1)` does)."""

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
    with ctx.queue.hold(path) as target:
        with open(target, "rb") as handle:
            data = handle.read()
        with open(target, "wb") as handle:
            handle.write(str(arguments.get("new_string", "")).encode() + data)
    return text_result(
        f"Inserted at the start of {path}.", observation={"path": path, "replacements": 1}
    )


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-EMPTY-02"},
    suite_modules=["test_edit"],
    create=create,
)
