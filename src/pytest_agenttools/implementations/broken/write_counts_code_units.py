"""write reports the content's length in UTF-16 code units instead of bytes on disk (as pi does)."""

from __future__ import annotations

import copy
import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CountsCodeUnits(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != "write" or result["isError"]:
            return result
        units = len(arguments["content"].encode("utf-16-le", "surrogatepass")) // 2
        out = copy.deepcopy(result)
        out["details"]["bytes_written"] = units
        out["details"]["observation"]["bytes_written"] = units
        block = out["content"][0]
        block["text"] = re.sub(r"wrote \d+ bytes", f"wrote {units} bytes", block["text"])
        return out


def create() -> CountsCodeUnits:
    return CountsCodeUnits()


BROKEN = Broken(
    caught_by={"WRITE-BYTES-01", "WRITE-PRES-01"},
    suite_modules=["test_write"],
    create=create,
)
