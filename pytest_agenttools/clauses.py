"""The spec's clauses as data: loaded from the suite's ``spec/*.toml``, rendered as docs/spec.md.

One source feeds the markers' meaning, ``agenttools clauses``, the report and the docs, and a
test keeps docs/spec.md equal to what ``render_markdown`` produces.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

LEVELS = ("MUST", "SHOULD")


@dataclass(frozen=True)
class Clause:
    id: str
    tool: str
    level: str
    title: str
    text: str
    rationale: str
    features: tuple[str, ...] = ()
    retired: bool = False
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    version: str
    intro: str
    clauses: tuple[Clause, ...]
    sections: Mapping[str, str]

    def by_id(self) -> dict[str, Clause]:
        return {c.id: c for c in self.clauses}

    def active(self) -> list[Clause]:
        return [c for c in self.clauses if not c.retired]


def suite_dir() -> Path:
    return Path(str(resources.files("pytest_agenttools.conformance")))


def spec_files(directory: Path | None = None) -> list[Path]:
    return sorted((directory or suite_dir() / "spec").glob("*.toml"))


def load(source: Path | None = None) -> Spec:
    """Parse the spec (a directory of TOML files, or one file); ValueError names a bad clause.

    Each file may hold ``version``/``intro`` (the first file), a ``[section]`` with the tool's
    introduction, and ``[[clause]]`` entries.
    """
    files = spec_files(source) if source is None or source.is_dir() else [source]
    version, intro = "0", ""
    sections: dict[str, str] = {}
    raws: list[tuple[Path, dict[str, Any]]] = []
    for path in files:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        version = str(data.get("version", version))
        intro = data.get("intro", intro)
        section = data.get("section")
        if isinstance(section, dict) and section.get("tool"):
            sections[section["tool"]] = section.get("text", "")
        raws += [(path, raw) for raw in data.get("clause", [])]
    clauses: list[Clause] = []
    seen: set[str] = set()
    for source, raw in raws:
        ident = raw.get("id", "?")
        missing = [
            k for k in ("id", "tool", "level", "title", "text", "rationale") if not raw.get(k)
        ]
        if missing:
            raise ValueError(f"{source}: clause {ident} lacks {', '.join(missing)}")
        if raw["level"] not in LEVELS:
            raise ValueError(f"{source}: clause {ident} level must be MUST or SHOULD")
        if ident in seen:
            raise ValueError(f"{source}: clause id {ident} appears twice; ids are never reused")
        seen.add(ident)
        clauses.append(
            Clause(
                id=ident,
                tool=raw["tool"],
                level=raw["level"],
                title=raw["title"],
                text=" ".join(raw["text"].split()),
                rationale=" ".join(raw["rationale"].split()),
                features=tuple(raw.get("features", ())),
                retired=bool(raw.get("retired", False)),
                tags=tuple(raw.get("tags", ())),
            )
        )
    return Spec(version=version, intro=intro.strip(), clauses=tuple(clauses), sections=sections)


def clause_test_index(directory: Path | None = None) -> dict[str, list[str]]:
    """Map clause id to ``file::test`` by reading the suite's source (no import, no collection)."""
    found: dict[str, list[str]] = {}
    for path in sorted((directory or suite_dir()).glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.ClassDef):
                continue
            for ident in _clause_ids(node.decorator_list):
                found.setdefault(ident, []).append(f"{path.name}::{node.name}")
    return found


def _clause_ids(decorators: Iterable[ast.expr]) -> list[str]:
    ids = []
    for deco in decorators:
        if isinstance(deco, ast.Call) and deco.args:
            func = deco.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            arg = deco.args[0]
            if name in ("clause", "agenttools_clause") and isinstance(arg, ast.Constant):
                ids.append(str(arg.value))
    return ids


def render_markdown(spec: Spec, tests: Mapping[str, list[str]]) -> str:
    """docs/spec.md, generated: every clause with its level, text, rationale and tests."""
    out = [f"# The agent tools specification, version {spec.version}", "", spec.intro, ""]
    tools = list(dict.fromkeys(c.tool for c in spec.clauses))
    for tool in tools:
        out += [f"## {tool}", ""]
        if tool in spec.sections:
            out += [spec.sections[tool].strip(), ""]
        for c in (c for c in spec.clauses if c.tool == tool):
            state = " (retired)" if c.retired else ""
            out += [f"### {c.id}: {c.title}{state}", "", f"**{c.level}.** {c.text}", ""]
            out += [f"*Rationale.* {c.rationale}", ""]
            if c.features:
                out += [
                    f"*Applies when the implementation declares:* `{'`, `'.join(c.features)}`",
                    "",
                ]
            if c.tags:
                out += [f"*Tags:* {', '.join(c.tags)}", ""]
            listed = tests.get(c.id, [])
            out += ["*Tests:* " + (", ".join(f"`{t}`" for t in listed) if listed else "none"), ""]
    return "\n".join(out).rstrip() + "\n"
