"""The reference with a soft-yield window of 0.2 s, fixed (not configurable, as a product's
window is): every long command goes to the background, a legal outcome the spec allows, as a
busy machine makes the reference's own 15 s window pass."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

WINDOW = {"bash.soft_yield_s": 0.2}


class EarlyYield(ReferenceTools):
    def __init__(self) -> None:
        super().__init__()
        self.limits.apply(WINDOW)

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["settings"] = [s for s in manifest["settings"] if s not in WINDOW]
        return manifest

    def configure(self, settings: Any) -> dict[str, Any]:
        return super().configure({k: v for k, v in settings.items() if k not in WINDOW})


def create() -> EarlyYield:
    return EarlyYield()
