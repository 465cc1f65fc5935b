"""write forgets an existing UTF-8 BOM (the most reported write bug)."""

from typing import Any

from pytest_agenttools.reference_impl import textcodec, write
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_write"]
CAUGHT_BY = {"WRITE-BOM-01"}


class DropsBom(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        if tool != "write":
            return super().call(tool, arguments, cwd, env, cancel)
        original = textcodec.detect_for_write
        textcodec.detect_for_write = lambda head: (
            textcodec.UTF8 if head.startswith(textcodec.UTF8_BOM) else original(head)
        )
        try:
            return super().call(tool, arguments, cwd, env, cancel)
        finally:
            textcodec.detect_for_write = original


def create() -> DropsBom:
    assert write  # the module whose behaviour is patched
    return DropsBom()
