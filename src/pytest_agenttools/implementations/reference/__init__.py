"""The reference implementation of the agent tools: a plain library that never imports pytest.

``create()`` is the factory the in-process adapter loads
(``--agenttools-impl=pytest_agenttools.implementations.reference:create``).
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def create(limits: Mapping[str, float] | None = None) -> ReferenceTools:
    return ReferenceTools(limits)


__all__ = ["ReferenceTools", "create"]
