"""bash runs a command whose working directory is missing in the system temp dir instead of
refusing it: the command acts on a directory nobody named."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Elsewhere(ReferenceTools):
    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        if tool == "bash" and isinstance(cwd, str) and "\0" not in cwd and not os.path.isdir(cwd):
            cwd = tempfile.gettempdir()
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> Elsewhere:
    return Elsewhere()


BROKEN = Broken(
    caught_by={"BASH-CWD-02"},
    suite_modules=["test_bash"],
    create=create,
)
