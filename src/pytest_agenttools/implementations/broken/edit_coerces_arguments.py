"""Bad arguments are coerced instead of refused: a missing or null new_string becomes "" (the
text is deleted), numbers and lists become their string form, any replace_all value is truthy."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def coerce(arguments: dict[str, Any]) -> dict[str, Any]:
    out = dict(arguments)
    if "edits" not in out:
        out["new_string"] = "" if out.get("new_string") is None else out["new_string"]
    for name in ("file_path", "old_string", "new_string"):
        if name in out and not isinstance(out[name], str):
            out[name] = str(out[name])
    if "replace_all" in out:
        out["replace_all"] = bool(out["replace_all"])
    return out


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    return edit.run(coerce(arguments) if isinstance(arguments, dict) else arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-ARG-02"},
    suite_modules=["test_edit"],
    create=create,
)
