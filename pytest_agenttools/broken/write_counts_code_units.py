"""write reports the content's length in UTF-16 code units instead of bytes on disk (as pi does)."""

import re
from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_write"]
CAUGHT_BY = {"WRITE-BYTES-01"}


class CountsCodeUnits(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        result = super().call(tool, arguments, cwd, env, cancel)
        if tool == "write" and not result["isError"]:
            units = len(arguments["content"].encode("utf-16-le")) // 2
            result["details"]["bytes_written"] = units
            block = result["content"][0]
            block["text"] = re.sub(r"wrote \d+ bytes", f"wrote {units} bytes", block["text"])
        return result


def create() -> CountsCodeUnits:
    return CountsCodeUnits()
