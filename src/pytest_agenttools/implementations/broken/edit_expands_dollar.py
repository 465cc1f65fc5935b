"""replace_all hands the replacement to a JavaScript-style replace, so `$&` and `$$` expand."""

import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def expand(replacement: str, matched: str) -> str:
    table = {"$$": "$", "$&": matched, "$`": "", "$'": ""}
    return re.sub(r"\$[$&`']", lambda m: table[m.group()], replacement)


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if isinstance(arguments, dict) and arguments.get("replace_all") is True:
        old, new = arguments.get("old_string"), arguments.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            arguments = {**arguments, "new_string": expand(new, old)}
    return edit.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"edit": run})


BROKEN = Broken(
    caught_by={"EDIT-RA-02"},
    suite_modules=["test_edit", "test_edit_properties"],
    create=create,
)
