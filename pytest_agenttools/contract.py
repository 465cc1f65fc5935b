"""The canonical contract between the kit and an implementation.

Everything here is plain data that survives a JSON round trip, so an in-process adapter and a
stdio adapter carry exactly the same values. Nothing in this module imports pytest.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PROTOCOL = "agenttools/1"
SPEC_VERSION = "0.1"

#: Canonical tool names and the argument names each one accepts (the Claude Code dialect).
TOOL_ARGUMENTS: Mapping[str, frozenset[str]] = {
    "read": frozenset({"path", "offset", "limit", "pages"}),
    "write": frozenset({"path", "content"}),
    "edit": frozenset({"file_path", "old_string", "new_string", "replace_all", "edits"}),
    "grep": frozenset(
        {
            "pattern",
            "path",
            "glob",
            "output_mode",
            "literal",
            "ignore_case",
            "context",
            "offset",
            "limit",
        }
    ),
    "glob": frozenset({"pattern", "path", "include_ignored", "sort", "offset", "limit"}),
    "bash": frozenset({"command", "timeout", "run_in_background"}),
    "task_output": frozenset({"task_id", "block", "timeout"}),
}
TOOLS: frozenset[str] = frozenset(TOOL_ARGUMENTS)

LINE_NUMBER_STYLES = frozenset({"arrow", "tab", "none"})


class ContractViolation(Exception):
    """An implementation answered with something the contract does not allow."""


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation: what the kit asks, in canonical names."""

    tool: str
    arguments: Mapping[str, Any]
    cwd: str
    env: Mapping[str, str] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "cwd": self.cwd,
        }
        if self.env is not None:
            wire["env"] = dict(self.env)
        return wire

    def describe(self) -> str:
        """A one-line rendering for error messages, long values shortened."""
        parts = []
        for key, value in self.arguments.items():
            text = repr(value)
            if len(text) > 60:
                text = text[:57] + "..."
            parts.append(f"{key}={text}")
        return f"{self.tool}({', '.join(parts)})"


@dataclass(frozen=True)
class ToolResult:
    """An MCP-shaped result. Errors are results with ``is_error`` set, never exceptions."""

    content: tuple[Mapping[str, Any], ...]
    is_error: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """All text blocks joined by newlines: what a model would read."""
        return "\n".join(str(b["text"]) for b in self.content if b.get("type") == "text")

    @property
    def images(self) -> list[tuple[str, bytes]]:
        """``(mimeType, decoded bytes)`` for every image block."""
        return [
            (str(b["mimeType"]), base64.b64decode(str(b["data"])))
            for b in self.content
            if b.get("type") == "image"
        ]

    def to_wire(self) -> dict[str, Any]:
        return {
            "content": [dict(b) for b in self.content],
            "isError": self.is_error,
            "details": dict(self.details),
        }

    @classmethod
    def from_wire(cls, value: Any) -> ToolResult:
        """Validate an implementation's answer; raise ContractViolation saying what is wrong."""
        if not isinstance(value, Mapping):
            raise ContractViolation(f"a result must be an object, got {type(value).__name__}")
        content = value.get("content")
        if not isinstance(content, list):
            raise ContractViolation(f"result.content must be a list, got {content!r:.80}")
        blocks: list[Mapping[str, Any]] = []
        for i, block in enumerate(content):
            if not isinstance(block, Mapping):
                raise ContractViolation(f"result.content[{i}] must be an object")
            kind = block.get("type")
            if kind == "text":
                if not isinstance(block.get("text"), str):
                    raise ContractViolation(f"result.content[{i}].text must be a string")
            elif kind == "image":
                if not isinstance(block.get("data"), str) or not isinstance(
                    block.get("mimeType"), str
                ):
                    raise ContractViolation(
                        f"result.content[{i}] (image) needs string 'data' and 'mimeType'"
                    )
            else:
                raise ContractViolation(
                    f"result.content[{i}].type must be 'text' or 'image', got {kind!r}"
                )
            blocks.append(block)
        is_error = value.get("isError", False)
        if not isinstance(is_error, bool):
            raise ContractViolation(f"result.isError must be a boolean, got {is_error!r}")
        details = value.get("details") or {}
        if not isinstance(details, Mapping):
            raise ContractViolation("result.details must be an object when present")
        return cls(content=tuple(blocks), is_error=is_error, details=dict(details))


@dataclass(frozen=True)
class Manifest:
    """What an implementation declares about itself; the suite tests against these values."""

    name: str
    version: str
    protocol: str = PROTOCOL
    spec_version: str = SPEC_VERSION
    tools: frozenset[str] = frozenset()
    features: frozenset[str] = frozenset()
    output: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Any] = field(default_factory=dict)
    settings: frozenset[str] = frozenset()

    def has_tool(self, tool: str) -> bool:
        return tool in self.tools

    def has_feature(self, feature: str) -> bool:
        return feature in self.features

    def limit(self, name: str) -> Any:
        """The declared value of a limit; KeyError names what is missing."""
        try:
            return self.limits[name]
        except KeyError:
            raise KeyError(
                f"the manifest of {self.name!r} declares no limit {name!r} "
                f"(declared: {', '.join(sorted(self.limits)) or 'none'})"
            ) from None

    @property
    def line_numbers(self) -> str:
        return str(self.output.get("line_numbers", "none"))

    @property
    def output_profile(self) -> str | None:
        profile = self.output.get("profile")
        return str(profile) if profile else None

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "protocol": self.protocol,
            "spec_version": self.spec_version,
            "tools": sorted(self.tools),
            "features": sorted(self.features),
            "output": dict(self.output),
            "limits": dict(self.limits),
            "settings": sorted(self.settings),
        }

    @classmethod
    def from_wire(cls, value: Any, *, source: str = "initialize") -> Manifest:
        """Build a manifest from JSON or TOML data; ContractViolation names the bad field."""
        if not isinstance(value, Mapping):
            raise ContractViolation(f"{source}: the manifest must be an object")

        def names(key: str) -> frozenset[str]:
            raw = value.get(key, [])
            if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
                raise ContractViolation(f"{source}: manifest.{key} must be a list of strings")
            return frozenset(raw)

        def table(key: str) -> Mapping[str, Any]:
            raw = value.get(key, {})
            if not isinstance(raw, Mapping):
                raise ContractViolation(f"{source}: manifest.{key} must be an object")
            return dict(raw)

        name = value.get("name")
        if not isinstance(name, str) or not name:
            raise ContractViolation(f"{source}: manifest.name must be a non-empty string")
        tools = names("tools")
        unknown = tools - TOOLS
        if unknown:
            raise ContractViolation(
                f"{source}: manifest.tools names unknown tools {sorted(unknown)}; "
                f"canonical tools are {sorted(TOOLS)}"
            )
        output = table("output")
        style = output.get("line_numbers", "none")
        if style not in LINE_NUMBER_STYLES:
            raise ContractViolation(
                f"{source}: manifest.output.line_numbers must be one of "
                f"{sorted(LINE_NUMBER_STYLES)}, got {style!r}"
            )
        return cls(
            name=name,
            version=str(value.get("version", "unknown")),
            protocol=str(value.get("protocol", PROTOCOL)),
            spec_version=str(value.get("spec_version", SPEC_VERSION)),
            tools=tools,
            features=names("features"),
            output=output,
            limits=table("limits"),
            settings=names("settings"),
        )

    def merged_with(self, override: Mapping[str, Any]) -> Manifest:
        """Apply a manifest file on top of what the implementation said (file wins per key)."""
        base = self.to_wire()
        for key, value in override.items():
            if key in ("output", "limits") and isinstance(value, Mapping):
                base[key] = {**base[key], **value}
            else:
                base[key] = value
        return Manifest.from_wire(base, source="manifest file")
