"""A naive edit written from the docs in five minutes: declares nothing (no limits, no
features, no settings), loads the whole file as UTF-8 text with universal newlines (a BOM
stripped, CRLF flattened, bad bytes replaced), no binary check, replaces the first occurrence
with a JavaScript-style `replace` (`$&` expands), writes the text back in place."""

import re
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError, text_result


def js_replace(text: str, old: str, new: str) -> str:
    """``text.replace(old, new)`` as JavaScript does it: the first occurrence, `$` patterns."""
    at = text.find(old)
    if at < 0:
        return text
    table = {"$$": "$", "$&": old, "$`": text[:at], "$'": text[at + len(old) :]}
    expanded = re.sub(r"\$[$&`']", lambda m: table[m.group()], new)
    return text[:at] + expanded + text[at + len(old) :]


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if not isinstance(arguments, dict):
        raise ToolError("invalid_argument", "edit: arguments must be an object.")
    for name in ("file_path", "old_string", "new_string"):
        if not isinstance(arguments.get(name), str):
            raise ToolError("invalid_argument", f"edit: {name} must be a string.")
    path = paths.expand(arguments["file_path"], ctx.cwd, ctx.env)
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            text = handle.read()
    except OSError as exc:
        raise ToolError("not_found", f"Cannot edit {path}: {exc.strerror}.") from None
    old, new = arguments["old_string"], arguments["new_string"]
    if old not in text:
        raise ToolError("not_found", f"old_string not found in {path}; read it again.")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(js_replace(text, old, new))
    observation = {"path": path, "replacements": 1}
    return text_result(f"Edited {path}.", observation=observation)


def create() -> Naive:
    return Naive("edit", run)


BROKEN = Broken(
    caught_by={
        "EDIT-ARG-02",
        "EDIT-BIN-01",
        "EDIT-BOM-01",
        "EDIT-EMPTY-02",
        "EDIT-EOL-01",
        "EDIT-EOL-02",
        "EDIT-LIT-01",
        "EDIT-NOCHANGE-02",
        "EDIT-OBS-01",
        "EDIT-PRES-02",
        "EDIT-PRES-03",
        "EDIT-PROP-01",
        "EDIT-QUEUE-01",
        "EDIT-UNIQ-02",
    },
    suite_modules=["test_edit", "test_edit_text", "test_edit_properties"],
    create=create,
)
