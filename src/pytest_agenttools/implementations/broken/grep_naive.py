"""A grep written from the docs in five minutes: a regex over every file below the root, in one
unbounded page, with no exclusions and no timeout; its manifest declares no grep feature and no
grep limit. It must fail core MUST clauses (secrets, result cap, timeout), not skip them."""

import os
import re
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError, text_result


def naive_grep(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    pattern = arguments.get("pattern") if isinstance(arguments, dict) else None
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("invalid_argument", "grep: pattern must be a non-empty string.")
    offset, limit = arguments.get("offset", 0), arguments.get("limit")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ToolError("invalid_argument", "grep: offset must be an integer >= 0.")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ToolError("invalid_argument", "grep: limit must be an integer >= 1.")
    ignore_case = arguments.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise ToolError("invalid_argument", "grep: ignore_case must be a boolean.")
    path = arguments.get("path")
    if path is not None and not isinstance(path, str):
        raise ToolError("invalid_argument", "grep: path must be a string.")
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ToolError("invalid_regex", f"grep: invalid pattern: {exc}.") from None
    root = os.path.join(ctx.cwd, path) if path else ctx.cwd
    if not os.path.exists(root):
        raise ToolError("not_found", f"grep: path not found: {root}.")
    files = (
        [root]
        if os.path.isfile(root)
        else sorted(os.path.join(d, n) for d, _, names in os.walk(root) for n in names)
    )
    found = []
    for name in files:
        try:
            with open(name, encoding="utf-8", errors="replace") as handle:
                if any(regex.search(line) for line in handle):
                    found.append(os.path.relpath(name, ctx.cwd))
        except OSError:
            continue
    page = found[offset : offset + limit] if limit else found[offset:]
    more = offset + len(page) < len(found)
    observation = {
        "mode": "files_with_matches",
        "files": page,
        "truncated": more,
        "next_offset": offset + len(page) if more else None,
        "total": len(found),
    }
    text = "\n".join(page) if page else "No matches."
    if more:
        text += f"\n(more: offset={offset + len(page)})"
    return text_result(text, observation=observation)


def create() -> Naive:
    return Naive("grep", naive_grep, line_numbers="none")


BROKEN = Broken(
    caught_by={
        "GREP-SENS-01",
        "GREP-SENS-02",
        "GREP-SENS-04",
        "GREP-CAP-01",
        "GREP-TIME-01",
    },
    suite_modules=["test_grep_filters", "test_grep_paging", "test_grep_limits"],
    create=create,
)
