"""The observation shapes (``observations.toml``), the one source that validation, the protocol
document's tables and the MCP mapping's keys come from."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

#: the tools with an observation of their own; task_output's is bash's
TOOLS = ("read", "write", "edit", "grep", "glob", "bash")
SHARES = {"task_output": "bash"}


@dataclass(frozen=True)
class Field:
    """One row of a tool's table: the keys it describes, their type and meaning."""

    tool: str
    keys: tuple[str, ...]
    type: str
    meaning: str

    def row(self) -> str:
        keys = ", ".join(f"`{k}`" for k in self.keys)
        return (
            "|"
            + "|".join(f" {cell} " if cell else " " for cell in (keys, self.type, self.meaning))
            + "|"
        )


@functools.cache
def fields() -> tuple[Field, ...]:
    text = (resources.files(__package__) / "observations.toml").read_text(encoding="utf-8")
    found = tuple(
        Field(str(f["tool"]), tuple(f["keys"]), str(f["type"]), str(f["meaning"]))
        for f in tomllib.loads(text)["field"]
    )
    unknown = sorted({f.tool for f in found} - set(TOOLS))
    if unknown:
        raise ValueError(f"observations.toml: unknown tools {unknown}; the tools are {TOOLS}")
    return found


def keys(tool: str) -> frozenset[str]:
    """The keys of ``tool``'s observation."""
    tool = SHARES.get(tool, tool)
    return frozenset(k for f in fields() if f.tool == tool for k in f.keys)


def all_keys() -> Mapping[str, frozenset[str]]:
    """Every tool's keys, task_output's included."""
    return {tool: keys(tool) for tool in (*TOOLS, *SHARES)}


def table(tool: str) -> list[str]:
    """``tool``'s table as docs/adapter-protocol.md shows it."""
    rows = [f.row() for f in fields() if f.tool == tool]
    return ["| key | type | meaning |", "|---|---|---|", *rows]
