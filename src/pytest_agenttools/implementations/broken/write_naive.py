"""A write written from the docs in five minutes: UTF-8 always, in place, counts code units.

It declares nothing (no features, no limits), so nothing it lacks can be excused as
undeclared: it drops a UTF-8 BOM, rewrites a UTF-16LE file as UTF-8, truncates and writes the
file in place with no lock, and reports the content's length in UTF-16 code units (JavaScript's
``content.length``). Each of these is a core MUST clause, and each must fail, not skip.
"""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError, text_result


def naive_write(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    path, content = arguments.get("path"), arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        raise ToolError("invalid_argument", "write needs a string path and a string content.")
    full = paths.expand(paths.check_raw(path), ctx.cwd, ctx.env)
    if os.path.isdir(full):
        raise ToolError("is_directory", f"{full} is a directory.")
    os.makedirs(os.path.dirname(full), exist_ok=True)
    data = content.encode("utf-8")
    with open(full, "wb") as handle:
        handle.write(data)
    length = len(content.encode("utf-16-le", "surrogatepass")) // 2
    return text_result(
        f"Successfully wrote {length} bytes to {path}",
        observation={"path": full, "bytes_written": length},
    )


def create() -> Naive:
    return Naive("write", naive_write)


BROKEN = Broken(
    caught_by={
        "WRITE-ATOMIC-01",
        "WRITE-BOM-01",
        "WRITE-BYTES-01",
        "WRITE-CANCEL-01",
        "WRITE-ENC-01",
        # its line endings over a BOM file are not judged: the lost BOM blocks WRITE-EOL-02
        "WRITE-PRES-01",
        "WRITE-QUEUE-02",
        "WRITE-ROUND-01",
    },
    suite_modules=["test_write", "test_write_properties"],
    create=create,
)
