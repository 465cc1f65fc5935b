"""A glob written from the docs in five minutes: Python's glob over the root, in one unbounded
page, with no exclusions and no timeout; its manifest declares no glob feature and no glob
limit. It must fail core MUST clauses (secrets, result cap, timeout), not skip them."""

import glob
import os
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError, text_result


def naive_glob(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    pattern = arguments.get("pattern") if isinstance(arguments, dict) else None
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("invalid_argument", "glob: pattern must be a non-empty string.")
    offset, limit = arguments.get("offset", 0), arguments.get("limit")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ToolError("invalid_argument", "glob: offset must be an integer >= 0.")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ToolError("invalid_argument", "glob: limit must be an integer >= 1.")
    path = arguments.get("path")
    if path is not None and not isinstance(path, str):
        raise ToolError("invalid_argument", "glob: path must be a string.")
    root = os.path.join(ctx.cwd, path) if path else ctx.cwd
    if not os.path.isdir(root):
        raise ToolError("not_found", f"glob: not a directory: {root}.")
    names = sorted(
        os.path.relpath(os.path.join(root, name), ctx.cwd)
        for name in glob.glob(pattern, root_dir=root, recursive=True)
        if os.path.isfile(os.path.join(root, name))
    )
    page = names[offset : offset + limit] if limit else names[offset:]
    more = offset + len(page) < len(names)
    observation = {
        "paths": page,
        "truncated": more,
        "next_offset": offset + len(page) if more else None,
        "total": len(names),
    }
    text = "\n".join(page) if page else "No files."
    if more:
        text += f"\n(more: offset={offset + len(page)})"
    return text_result(text, observation=observation)


def create() -> Naive:
    return Naive("glob", naive_glob, keep_output=True)


BROKEN = Broken(
    caught_by={"GLOB-SENS-01", "GLOB-SENS-03", "GLOB-CAP-01", "GLOB-TIME-01"},
    suite_modules=["test_glob_filters", "test_glob_limits"],
    create=create,
)
