"""write replaces the file through a temp file but forgets to copy the permission bits."""

import os
from typing import Any

from pytest_agenttools.reference_impl import fsport
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_write"]
CAUGHT_BY = {"WRITE-MODE-01"}


class LosesMode(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        original = fsport.atomic_replace

        def replace(target: str, data: bytes, mode: int | None) -> None:
            original(target, data, None)
            os.chmod(target, 0o644)

        fsport.atomic_replace = replace
        try:
            return super().call(tool, arguments, cwd, env, cancel)
        finally:
            fsport.atomic_replace = original


def create() -> LosesMode:
    return LosesMode()
