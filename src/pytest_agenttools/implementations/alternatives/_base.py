"""The machinery of the alternative implementations: a style, its rewrites, its manifest."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]
TOOL_MODULES = ("read", "write", "edit", "grep", "glob", "bash")


@dataclass(frozen=True)
class Style:
    """One alternative: what real tool it is modelled on, and how it differs from the reference."""

    name: str
    modelled_on: str
    summary: str


STYLES: Mapping[str, Style] = {
    style.name: style
    for style in (
        Style(
            "tab_absolute",
            "Claude Code",
            "line numbers with a tab, absolute paths in search results, its own error wording",
        ),
        Style(
            "header_first",
            "Gemini CLI",
            "truncation notices before the content, 0-based read offsets, grep matches grouped "
            "per file, bash output under labels",
        ),
        Style(
            "raw_text",
            "pi",
            "no line numbers, pi's notices and wording, `path:N: text` grep lines",
        ),
        Style(
            "renamed_arguments",
            "OpenCode",
            "its own argument names (filePath, oldString, startLine ...) in every error",
        ),
        Style(
            "refuses_sensitive",
            "a policy-enforcing MCP server",
            "a search rooted in a sensitive directory is refused with an error, not answered empty",
        ),
        Style(
            "reworded_errors",
            "Codex",
            "every error worded differently, with its own vocabulary",
        ),
        Style(
            "char_units",
            "Claude Code's output caps",
            "size limits counted in characters, not bytes",
        ),
        Style(
            "tagged",
            "Cursor",
            "results wrapped in tags, read lines as `L12: text`",
        ),
    )
}


def _tool_module(tool: str) -> Any:
    return importlib.import_module(f"{__package__}.{tool}")


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

    def __init__(self, style: str, limits: Mapping[str, Any] | None = None) -> None:
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}; known: {', '.join(STYLES)}")
        self.style = style
        self.presenters: dict[str, Present] = {}
        fragments: list[Mapping[str, Any]] = [self.BASE_MANIFEST]
        setup: dict[str, Any] = {}
        for tool in TOOL_MODULES:
            module = _tool_module(tool)
            present = getattr(module, "PRESENT", {}).get(style)
            if present is not None:
                self.presenters[tool] = present
                if tool == "bash":
                    self.presenters["task_output"] = present
            fragment = getattr(module, "MANIFEST", {}).get(style)
            if fragment:
                fragments.append(fragment)
            for key, value in getattr(module, "SETUP", {}).get(style, {}).items():
                # limits, units, ops and runs are per tool: several tool modules may add theirs
                if isinstance(value, Mapping):
                    setup[key] = {**setup.get(key, {}), **value}
                else:
                    setup[key] = value
        self.fragments = fragments
        super().__init__({**setup.pop("limits", {}), **(limits or {})}, **setup)

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
