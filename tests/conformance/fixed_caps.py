"""The reference with the read caps a real agent ships (``read.max_bytes = 51200``,
``read.max_line_chars = 2000``), declared and not configurable, as a product's caps are."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

CAPS = {"read.max_bytes": 51200, "read.max_line_chars": 2000}


class FixedCaps(ReferenceTools):
    def __init__(self) -> None:
        super().__init__()
        self.limits.apply(CAPS)

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["settings"] = [s for s in manifest["settings"] if s not in CAPS]
        return manifest

    def configure(self, settings: Any) -> dict[str, Any]:
        return super().configure({k: v for k, v in settings.items() if k not in CAPS})


def create() -> FixedCaps:
    return FixedCaps()
