"""A multi-edit applies and writes its entries one by one, so a failing entry leaves the earlier
ones on disk."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if not isinstance(arguments, dict) or not isinstance(arguments.get("edits"), list):
        return edit.run(arguments, ctx)
    result: dict[str, Any] = {}
    for entry in arguments["edits"]:
        single = {"file_path": arguments.get("file_path"), **entry}
        result = edit.run(single, ctx)  # a failure raises after the earlier entries landed
    return result


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-MULTI-03"},
    suite_modules=["test_edit"],
    create=create,
)
