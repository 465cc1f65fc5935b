"""bash declares a background cap of 3600 s but applies any requested background timeout as asked
(a watchdog with no cap, as MiniMax's, under a manifest that says it has one)."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Uncapped(ReferenceTools):
    def __init__(self) -> None:
        super().__init__({"bash.background_max_timeout_s": 0})  # enforces no cap ...

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"]["bash.background_max_timeout_s"] = 3600.0  # ... but says it has one
        manifest["settings"] = [
            s for s in manifest["settings"] if s != "bash.background_max_timeout_s"
        ]
        return manifest


def create() -> ReferenceTools:
    return Uncapped()


BROKEN = Broken(
    caught_by={"BASH-BG-05"},
    suite_modules=["test_bash_tasks"],
    create=create,
)
