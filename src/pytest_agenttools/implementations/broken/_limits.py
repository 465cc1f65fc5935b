"""Shared by the broken implementations that declare a limit but do not keep it.

``IgnoresLimits(unbounded)`` is the reference that tells the suite its usual caps (its manifest
lists them, unchanged) while its tools run with ``unbounded`` instead, which no setting can
change: a cap that is only declared. ``RgRunsWith`` is a search port whose rg runs with some of
its bounds (``timeout``, ``max_bytes``) replaced.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pytest_agenttools.implementations.reference import ripgrep
from pytest_agenttools.implementations.reference.search_ops import SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class IgnoresLimits(ReferenceTools):
    def __init__(self, unbounded: Mapping[str, Any]) -> None:
        super().__init__()
        #: the limits the tools really run with, whatever the manifest says and settings ask
        self.unbounded = dict(unbounded)
        self.declared = self.limits.declared()
        self.limits.apply(self.unbounded)

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"] = dict(self.declared)
        manifest["settings"] = [s for s in manifest["settings"] if s not in self.unbounded]
        return manifest

    def configure(self, settings: Any) -> dict[str, Any]:
        return super().configure({k: v for k, v in settings.items() if k not in self.unbounded})


class RgRunsWith(SearchOps):
    #: rg's bounds replaced in every run (``timeout``, ``max_bytes``)
    BOUNDS: ClassVar[Mapping[str, Any]] = {}

    def run(
        self,
        argv: Sequence[str],
        cwd: str,
        *,
        timeout: float,
        max_bytes: int,
        cancel: threading.Event | None,
        env: Mapping[str, str] | None,
    ) -> ripgrep.RgRun:
        bounds: dict[str, Any] = {"timeout": timeout, "max_bytes": max_bytes, **self.BOUNDS}
        return super().run(argv, cwd, cancel=cancel, env=env, **bounds)
