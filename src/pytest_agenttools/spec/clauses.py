"""The spec as data: clauses, features and limits, loaded from the suite's ``spec/*.toml``.

One source feeds the markers' meaning, manifest validation, ``agenttools clauses``, the report
and docs/spec.md; a test keeps docs/spec.md equal to what ``render_markdown`` produces. The spec
is parsed once per process (the parse is immutable data), however many tests ask for it.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

LEVELS = ("MUST", "SHOULD")
KINDS = ("behaviour", "presentation")
#: what a clause's tests look at to judge it
OBSERVES = ("observation", "disk", "processes", "text", "protocol", "manifest")
CORE = "core"
#: clause "tools" that are no tool: their clauses apply to every implementation whatever tools
#: it declares, and form a conformance level of their own (the value). The robust clauses' level
#: is named as their tool is (``--tools robust``, ``-m robust``): "robustness" is a topic tag of
#: other tools' clauses (``--features robustness``), so it cannot stand for them too
LEVEL_TOOLS: Mapping[str, str] = {"robust": "robust"}
#: how the kit reaches an implementation (``Adapter.transport``); a clause naming some of them
#: in ``transports`` judges something only those carry (raw protocol lines: stdio)
TRANSPORTS = ("in-process", "stdio", "mcp")
CLAUSE_ID = re.compile(r"\b[A-Z]+(?:_[A-Z]+)?-[A-Z0-9]+-\d\d\b")


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
    kind: str = "behaviour"
    observes: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()
    transports: tuple[str, ...] = ()
    #: other tools the clause's tests call (write and edit racing each other); the clause does
    #: not run when the implementation lacks one of them
    needs: tuple[str, ...] = ()

    @property
    def conformance_level(self) -> str:
        """``core``, the feature(s) the clause belongs to (``read.pdf``), or the level of a
        clause "tool" that is no tool (``robust``: one name for the tool of ``--tools robust``,
        the marker and the level)."""
        if self.features:
            return "+".join(self.features)
        return LEVEL_TOOLS.get(self.tool, CORE)

    @property
    def for_every_implementation(self) -> bool:
        """Whether the clause applies whatever tools the implementation declares."""
        return self.tool in LEVEL_TOOLS


@dataclass(frozen=True)
class Feature:
    name: str
    tool: str
    text: str


@dataclass(frozen=True)
class LimitSpec:
    """A limit name a manifest may declare; ``units[0]`` is the unit of a bare number."""

    name: str
    tool: str
    units: tuple[str, ...]
    text: str
    probe: str = ""


@dataclass(frozen=True)
class Table:
    """A data table of the spec (``[[table]]``): the values clauses refer to by name.

    The suite draws its fixtures from these (scrubbed variable names, sensitive file names ...),
    docs/spec.md renders them, and the kit's own tests check the reference against them. In TOML
    a table is either a list, ``values = ["a", "b"]`` (one column named ``value``), or
    ``columns = [...]`` with ``rows = [[...], ...]``.
    """

    name: str
    tool: str
    title: str
    text: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def values(self) -> tuple[str, ...]:
        """The first column: the entries of a list table."""
        return tuple(row[0] for row in self.rows)

    def column(self, name: str) -> list[str]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


@dataclass(frozen=True)
class Spec:
    version: str
    intro: str
    clauses: tuple[Clause, ...]
    sections: Mapping[str, str]
    features: Mapping[str, Feature]
    limits: Mapping[str, LimitSpec]
    tables: Mapping[str, Table] = field(default_factory=dict)

    def table(self, name: str) -> Table:
        """The data table ``name``; KeyError names the known ones."""
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(
                f"no spec table {name!r}; known: {', '.join(sorted(self.tables))}"
            ) from None

    @functools.cached_property
    def _by_id(self) -> dict[str, Clause]:
        return {c.id: c for c in self.clauses}

    def by_id(self) -> dict[str, Clause]:
        return self._by_id

    def active(self) -> list[Clause]:
        return [c for c in self.clauses if not c.retired]


def suite_dir() -> Path:
    return Path(str(resources.files("pytest_agenttools.conformance")))


def spec_dir() -> Path:
    """The clause TOML (one file per tool) and, under ``data/``, the spec's tables."""
    return Path(str(resources.files("pytest_agenttools.spec")))


def spec_files(directory: Path | None = None) -> list[Path]:
    return sorted((directory or spec_dir()).glob("*.toml"))


def load(source: Path | None = None) -> Spec:
    """The spec of the installed suite (parsed once per process), or of ``source``."""
    return _load(str(source) if source is not None else "")


@functools.lru_cache(maxsize=8)
def _load(source: str) -> Spec:
    path = Path(source) if source else None
    files = spec_files(path) if path is None or path.is_dir() else [path]
    version, intro = "0", ""
    sections: dict[str, str] = {}
    raws: list[tuple[Path, dict[str, Any]]] = []
    features: dict[str, Feature] = {}
    limits: dict[str, LimitSpec] = {}
    tables: dict[str, Table] = {}
    for file in files:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
        version = str(data.get("version", version))
        intro = data.get("intro", intro)
        section = data.get("section")
        if isinstance(section, dict) and section.get("tool"):
            sections[section["tool"]] = section.get("text", "")
        raws += [(file, raw) for raw in data.get("clause", [])]
        for raw in data.get("feature", []):
            features[raw["name"]] = Feature(raw["name"], raw["tool"], " ".join(raw["text"].split()))
        for raw in data.get("limit", []):
            limits[raw["name"]] = LimitSpec(
                raw["name"],
                raw["tool"],
                tuple(raw["units"]),
                " ".join(raw["text"].split()),
                raw.get("probe", ""),
            )
        for raw in data.get("table", []):
            table = _table(file, raw)
            if table.name in tables:
                raise ValueError(f"{file}: table {table.name} appears twice")
            tables[table.name] = table
    clauses = [_clause(file, raw) for file, raw in raws]
    seen: set[str] = set()
    for clause in clauses:
        if clause.id in seen:
            raise ValueError(f"clause id {clause.id} appears twice; ids are never reused")
        seen.add(clause.id)
    return Spec(
        version=version,
        intro=intro.strip(),
        clauses=tuple(clauses),
        sections=sections,
        features=features,
        limits=limits,
        tables=tables,
    )


def _table(source: Path, raw: dict[str, Any]) -> Table:
    name = raw.get("name", "?")
    if "values" in raw:
        columns: list[Any] = ["value"]
        rows: list[Any] = [[v] for v in raw["values"]] if isinstance(raw["values"], list) else []
    else:
        columns, rows = raw.get("columns", []), raw.get("rows", [])
    cells_ok = all(
        isinstance(row, list) and len(row) == len(columns) and all(isinstance(c, str) for c in row)
        for row in rows
    )
    if not columns or not rows or not cells_ok or not all(isinstance(c, str) for c in columns):
        raise ValueError(
            f"{source}: table {name} needs values = [strings], or columns = [names] and rows of "
            "that many strings"
        )
    return Table(
        name,
        raw.get("tool", ""),
        raw.get("title", name),
        " ".join(raw.get("text", "").split()),
        tuple(columns),
        tuple(tuple(row) for row in rows),
    )


def _clause(source: Path, raw: dict[str, Any]) -> Clause:
    ident = raw.get("id", "?")
    missing = [k for k in ("id", "tool", "level", "title", "text", "rationale") if not raw.get(k)]
    if missing:
        raise ValueError(f"{source}: clause {ident} lacks {', '.join(missing)}")
    if raw["level"] not in LEVELS:
        raise ValueError(f"{source}: clause {ident} level must be MUST or SHOULD")
    kind = raw.get("kind", "behaviour")
    if kind not in KINDS:
        raise ValueError(f"{source}: clause {ident} kind must be one of {KINDS}, got {kind!r}")
    observes = tuple(raw.get("observes", ()))
    unknown = [o for o in observes if o not in OBSERVES]
    if unknown:
        raise ValueError(f"{source}: clause {ident} observes unknown {unknown}; use {OBSERVES}")
    transports = tuple(raw.get("transports", ()))
    strange = [t for t in transports if t not in TRANSPORTS]
    if strange:
        raise ValueError(
            f"{source}: clause {ident} names unknown transports {strange}; use {TRANSPORTS}"
        )
    return Clause(
        id=ident,
        tool=raw["tool"],
        level=raw["level"],
        title=raw["title"],
        text=" ".join(raw["text"].split()),
        rationale=" ".join(raw["rationale"].split()),
        features=tuple(raw.get("features", ())),
        retired=bool(raw.get("retired", False)),
        tags=tuple(raw.get("tags", ())),
        kind=kind,
        observes=observes,
        limits=tuple(raw.get("limits", ())),
        transports=transports,
        needs=tuple(raw.get("needs", ())),
    )


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


def modules_testing(
    clauses: Iterable[str], index: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The suite's modules (``test_read``, ...) that hold the tests of ``clauses``, read from
    the source (``clause_test_index``), for a run that need not import and collect the other
    forty-odd (about 3 s of CPU in every process of the run). Empty, meaning the whole suite,
    when any clause has no test there: a narrower collection must never lose a test (an
    unknown id is then refused by the run, as before). ``index``: ``clause_test_index()``,
    when the caller has it already."""
    if index is None:
        index = clause_test_index()
    modules: set[str] = set()
    for ident in clauses:
        tests = index.get(ident)
        if not tests:
            return []
        modules.update(test.split("::", 1)[0].removesuffix(".py") for test in tests)
    return sorted(modules)


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


def reference_dir() -> Path:
    return Path(str(resources.files("pytest_agenttools.implementations.reference")))


def implementation_index(directory: Path | None = None) -> dict[str, list[str]]:
    """Map clause id to the reference code that implements it (``module.py::function``).

    A reference function (or class, or the module docstring) names the clauses it implements in
    its docstring or in a comment inside it; this index is how docs/spec.md links a clause to
    its implementation.
    """
    found: dict[str, list[str]] = {}
    for path in sorted((directory or reference_dir()).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        lines = source.splitlines()
        spans: list[tuple[int, int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                end = node.end_lineno or node.lineno
                spans.append((node.lineno, end, node.name))
        for number, line in enumerate(lines, start=1):
            for ident in CLAUSE_ID.findall(line):
                inner = [s for s in spans if s[0] <= number <= s[1]]
                owner = min(inner, key=lambda s: s[1] - s[0])[2] if inner else ""
                where = f"{path.name}::{owner}" if owner else path.name
                places = found.setdefault(ident, [])
                if where not in places:
                    places.append(where)
    return found


def render_markdown(
    spec: Spec,
    tests: Mapping[str, list[str]],
    implementations: Mapping[str, list[str]] | None = None,
    broken: Mapping[str, list[str]] | None = None,
) -> str:
    """docs/spec.md, generated: every clause with its level, text, rationale, tests, code and
    the broken implementations its tests catch (the proof that they can fail)."""
    impl = implementations or {}
    caught = broken or {}
    out = [f"# The agent tools specification, version {spec.version}", "", spec.intro, ""]
    out += _registry_tables(spec)
    tools = list(dict.fromkeys(c.tool for c in spec.clauses))
    for tool in tools:
        out += [f"## {tool}", ""]
        if tool in spec.sections:
            out += [spec.sections[tool].strip(), ""]
        for table in (t for t in spec.tables.values() if t.tool == tool):
            out += _render_table(table)
        for c in (c for c in spec.clauses if c.tool == tool):
            state = " (retired)" if c.retired else ""
            kind = " Presentation." if c.kind == "presentation" else ""
            out += [f"### {c.id}: {c.title}{state}", "", f"**{c.level}.**{kind} {c.text}", ""]
            out += [f"*Rationale.* {c.rationale}", ""]
            facts = [f"*Level:* {c.conformance_level}"]
            if c.observes:
                facts.append(f"*Observes:* {', '.join(c.observes)}")
            if c.limits:
                facts.append(f"*Limits:* `{'`, `'.join(c.limits)}`")
            if c.transports:
                facts.append(f"*Transports:* {', '.join(c.transports)}")
            if c.needs:
                facts.append(f"*Also needs:* {', '.join(c.needs)}")
            if c.tags:
                facts.append(f"*Tags:* {', '.join(c.tags)}")
            out += [" · ".join(facts), ""]
            listed = tests.get(c.id, [])
            out += ["*Tests:* " + (", ".join(f"`{t}`" for t in listed) if listed else "none"), ""]
            code = impl.get(c.id, [])
            if code:
                out += ["*Reference:* " + ", ".join(f"`{p}`" for p in code), ""]
            copies = caught.get(c.id, [])
            if copies:
                out += ["*Caught broken copies:* " + ", ".join(f"`{b}`" for b in copies), ""]
    return "\n".join(out).rstrip() + "\n"


def _cell(value: str) -> str:
    """A table cell: code, with the characters Markdown would read escaped."""
    if not value:
        return "(empty)"
    shown = value.replace("|", "\\|")
    return f"`` {shown} ``" if "`" in shown else f"`{shown}`"


def _render_table(table: Table) -> list[str]:
    out = [f"### Table `{table.name}`: {table.title}", ""]
    if table.text:
        out += [table.text, ""]
    if len(table.columns) == 1:
        return [*out, ", ".join(_cell(value) for value in table.values), ""]
    out += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    for row in table.rows:
        first, *rest = row
        # a value (one token) is shown as code, a description (words) as prose; a pipe in either
        # is escaped so the row keeps its columns
        cells = [_cell(v) if " " not in v else v.replace("|", "\\|") for v in rest]
        out.append("| " + " | ".join([_cell(first), *cells]) + " |")
    out.append("")
    return out


def _registry_tables(spec: Spec) -> list[str]:
    """The manifest names table: every feature and limit with its unit and gated clauses."""
    gated: dict[str, list[str]] = {}
    for clause in spec.active():
        for name in (*clause.features, *clause.limits):
            gated.setdefault(name, []).append(clause.id)
    out = ["## Manifest names", ""]
    out += [
        "Every feature and limit a manifest may declare (docs/adapter-protocol.md, The manifest);",
        "a manifest naming anything else is rejected. A limit is a number in its first unit, or",
        '`{value = N, unit = "..."}` in another listed unit.',
        "",
        "| feature | tool | meaning | clauses |",
        "|---|---|---|---|",
    ]
    for feature in spec.features.values():
        clauses = ", ".join(gated.get(feature.name, [])) or "none"
        out.append(f"| `{feature.name}` | {feature.tool} | {feature.text} | {clauses} |")
    out += [
        "",
        "| limit | tool | units | meaning | undeclared: probed with | clauses |",
        "|---|---|---|---|---|---|",
    ]
    for limit in spec.limits.values():
        clauses = ", ".join(gated.get(limit.name, [])) or "none"
        probe = limit.probe or "not probed"
        out.append(
            f"| `{limit.name}` | {limit.tool} | {', '.join(limit.units)} | {limit.text} | "
            f"{probe} | {clauses} |"
        )
    out.append("")
    return out
