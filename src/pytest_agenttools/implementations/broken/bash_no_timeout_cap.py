"""bash declares a timeout cap of 300 s but applies any requested timeout as asked."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Uncapped(ReferenceTools):
    def __init__(self) -> None:
        super().__init__({"bash.max_timeout_s": 0})  # enforces no cap ...

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"]["bash.max_timeout_s"] = 300.0  # ... but says it has one
        manifest["settings"] = [s for s in manifest["settings"] if s != "bash.max_timeout_s"]
        return manifest


def create() -> ReferenceTools:
    return Uncapped()


BROKEN = Broken(
    caught_by={"BASH-TIMEOUT-03", "BASH-TIMEOUT-04"},
    suite_modules=["test_bash"],
    create=create,
)
