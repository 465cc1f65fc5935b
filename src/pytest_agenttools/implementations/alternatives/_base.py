"""The machinery of the alternative implementations: a style, what it does to each tool, and
the reference run under it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]
TOOL_MODULES = ("read", "write", "edit", "grep", "glob", "bash")


@dataclass(frozen=True)
class Setup:
    """What a style changes in the reference's constructor for one tool: its limits and their
    units, its operations ports and its tools' ``run`` functions, each by the reference's own
    names (``read.max_bytes``, ``bash`` ...)."""

    limits: Mapping[str, Any] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    ops: Mapping[str, Any] = field(default_factory=dict)
    runs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolStyle:
    """What a style does to one tool: rewrite its results, lay a fragment over the manifest,
    set the reference up another way."""

    present: Present | None = None
    manifest: Mapping[str, Any] = field(default_factory=dict)
    setup: Setup = field(default_factory=Setup)


@dataclass(frozen=True)
class Style:
    """One alternative: what real tool it is modelled on, and how it differs from the reference,
    tool by tool (a tool it leaves as the reference has it is None)."""

    name: str
    modelled_on: str
    summary: str
    read: ToolStyle | None = None
    write: ToolStyle | None = None
    edit: ToolStyle | None = None
    grep: ToolStyle | None = None
    glob: ToolStyle | None = None
    bash: ToolStyle | None = None

    def tools(self) -> dict[str, ToolStyle]:
        """The tools it changes, in the table's order."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name in TOOL_MODULES}
        return {tool: value for tool, value in values.items() if value is not None}


def merge(base: dict[str, Any], fragment: Mapping[str, Any]) -> dict[str, Any]:
    """``fragment`` laid over ``base``, tables merged key by key, ``None`` deleting a key."""
    out = copy.deepcopy(base)
    for key, value in fragment.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class Alternative(ReferenceTools):
    """The reference under one style: same behaviour, another presentation and dialect."""

    #: every alternative drops the reference's byte-exact output profile (its goldens)
    BASE_MANIFEST: Mapping[str, Any] = {"output": {"profile": None}}

    def __init__(self, style: Style, limits: Mapping[str, Any] | None = None) -> None:
        self.style = style.name
        self.presenters: dict[str, Present] = {}
        fragments: list[Mapping[str, Any]] = [self.BASE_MANIFEST]
        setup: dict[str, dict[str, Any]] = {"limits": {}, "units": {}, "ops": {}, "runs": {}}
        for tool, changes in style.tools().items():
            if changes.present is not None:
                self.presenters[tool] = changes.present
                if tool == "bash":
                    self.presenters["task_output"] = changes.present
            if changes.manifest:
                fragments.append(changes.manifest)
            # limits, units, ops and runs are per tool: several tools may add theirs
            for part in fields(Setup):
                setup[part.name].update(getattr(changes.setup, part.name))
        self.fragments = fragments
        super().__init__(
            {**setup["limits"], **(limits or {})},
            ops=setup["ops"] or None,
            runs=setup["runs"] or None,
            units=setup["units"] or None,
        )

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["name"] = f"alternative-{self.style}"
        for fragment in self.fragments:
            manifest = merge(manifest, fragment)
        return manifest

    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        present = self.presenters.get(tool)
        return present(arguments, cwd, result) if present is not None else result
