"""replace_all takes a second code path, a plain `str.replace` over the file read as text with
universal newlines: the BOM is dropped and every line ending becomes LF."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError, text_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if not isinstance(arguments, dict) or arguments.get("replace_all") is not True:
        return edit.run(arguments, ctx)
    request = edit.parse(arguments)
    old, new = request.edits[0].old, request.edits[0].new
    path = paths.expand(request.raw_path, ctx.cwd, ctx.env)
    with ctx.queue.hold(path) as target:
        with open(target, encoding="utf-8-sig") as handle:
            text = handle.read()
        count = text.count(old)
        if not count:
            raise ToolError("not_found", f"old_string was not found in {path}; read it again.")
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text.replace(old, new))
    observation = {"path": path, "replacements": count}
    return text_result(f"Replaced {count} occurrence(s) in {path}.", observation=observation)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-RA-03"},
    suite_modules=["test_edit", "test_edit_properties"],
    create=create,
)
