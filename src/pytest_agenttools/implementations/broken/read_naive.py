"""A read written from the docs in five minutes: it declares nothing (no limits, no features,
no settings), loads the whole file, decodes it as UTF-8 and shows everything, binary, BOM and
UTF-16 bytes included.

It keeps the reference's argument checks and its refusal of devices, FIFOs and directories (a
naive read of /dev/zero would take the kit's process down with it), so what fails is what a
manifest that declares little used to hide: core MUST clauses must fail, not skip.
"""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import fsport, paths
from pytest_agenttools.implementations.reference.arguments import check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.read import PARAMS, number_line
from pytest_agenttools.implementations.reference.results import ToolError, text_result


def naive_read(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("read", PARAMS, arguments)
    path = paths.expand(paths.check_raw(args["path"]), ctx.cwd, ctx.env)
    if not os.path.exists(path):
        raise ToolError("not_found", f"File not found: {path}")
    fsport.guard_readable(path)
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    offset = max(1, args.get("offset", 1))
    if lines and offset > len(lines):
        raise ToolError(
            "offset_beyond_end", f"Offset {offset} is beyond end of file ({len(lines)} lines)"
        )
    limit = args.get("limit")
    if limit is not None and limit < 1:
        raise ToolError("invalid_argument", "limit must be 1 or more")
    page = lines[offset - 1 : offset - 1 + limit if limit else None]
    end = offset + len(page) - 1
    truncated = end < len(lines)
    observation: dict[str, Any] = {
        "kind": "text",
        "start_line": offset,
        "lines": page,
        "truncated": truncated,
    }
    if truncated:
        observation["next_offset"] = end + 1
    else:
        observation["total_lines"] = len(lines)
    body = "\n".join(number_line(n, line) for n, line in enumerate(page, start=offset))
    if truncated:
        body += f"\n\n[Use offset={end + 1} to continue.]"
    return text_result(body or "(empty file)", observation=observation)


def create() -> Naive:
    return Naive("read", naive_read)


BROKEN = Broken(
    caught_by={
        "READ-BIN-02",
        "READ-BOM-01",
        "READ-CAP-01",
        "READ-CAP-02",
        "READ-CAP-03",
        "READ-EMPTY-02",
        "READ-ENC-01",
        "READ-PAGE-01",
        "READ-PRES-02",
        "READ-STREAM-01",
        "READ-STREAM-02",
    },
    suite_modules=["test_read", "test_read_paging"],
    create=create,
)
