"""The reference without the optional feature ``bash.background``: not declared, and refused."""

from __future__ import annotations

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoBackground(ReferenceTools):
    def features(self) -> list[str]:
        return [f for f in super().features() if f != "bash.background"]


def create() -> NoBackground:
    return NoBackground()
