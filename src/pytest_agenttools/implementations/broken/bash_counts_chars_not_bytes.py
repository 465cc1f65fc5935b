"""bash declares its output cap in bytes but counts characters: multibyte output overflows it."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CountsChars(ReferenceTools):
    def __init__(self) -> None:
        super().__init__(units={"bash.output_max_bytes": "chars"})  # counts characters ...

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        declared = manifest["limits"]["bash.output_max_bytes"]
        manifest["limits"]["bash.output_max_bytes"] = declared["value"]  # ... declares bytes
        return manifest


def create() -> ReferenceTools:
    return CountsChars()


BROKEN = Broken(
    caught_by={"BASH-OUT-06"},
    suite_modules=["test_bash_output"],
    create=create,
)
