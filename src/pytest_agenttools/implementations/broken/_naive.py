"""Shared by the naive implementations: the reference with one tool swapped for a naive one
that declares nothing (no limits, no features, no settings, no golden profile), so no clause
can be excused by a declaration and every core MUST clause of that tool runs."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools, Tool


class Naive(ReferenceTools):
    """``tool`` runs ``run``; the manifest's numbering style is ``line_numbers`` (the
    reference's when None), and its whole ``output`` section stays with ``keep_output``."""

    def __init__(
        self, tool: str, run: Tool, *, line_numbers: str | None = None, keep_output: bool = False
    ) -> None:
        super().__init__(runs={tool: run})
        self._line_numbers = line_numbers
        self._keep_output = keep_output

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest.update(features=[], limits={}, settings=[])
        if not self._keep_output:
            style = self._line_numbers or manifest["output"]["line_numbers"]
            manifest["output"] = {"line_numbers": style}
        return manifest
