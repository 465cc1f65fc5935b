"""bash declares 30,000 characters of output and shows 40,000 (its cap is a third larger than
the one it declares, and than the one it reports as configured)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

NAME = "bash.output_max_bytes"


class OverCap(ReferenceTools):
    def __init__(self) -> None:
        super().__init__({NAME: 40_000}, units={NAME: "chars"})

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        value = manifest["limits"][NAME]["value"]
        manifest["limits"][NAME] = {"value": value * 3 // 4, "unit": "chars"}
        return manifest

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        wanted = dict(settings)
        if isinstance(wanted.get(NAME), int):
            wanted[NAME] = wanted[NAME] * 4 // 3
        answer = super().configure(wanted)
        if NAME in answer["applied"]:
            answer["applied"][NAME] = settings[NAME]
        return answer


def create() -> ReferenceTools:
    return OverCap()


BROKEN = Broken(
    caught_by={"BASH-OUT-06"},
    suite_modules=["test_bash_output"],
    create=create,
)
