"""The package's layering: no import cycle, not even one hidden in a function, and each room
imports only from the rooms below it.

Imports inside functions count as edges too (a lazy import keeps start-up cheap, it must not be
what breaks a cycle). Imports under ``TYPE_CHECKING`` do not: they never run, and an annotation
may name a type of any room.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO

SRC = REPO / "src"
PACKAGE = "pytest_agenttools"

#: the rooms from the bottom up: a module may import its own layer and those below it. A room is
#: a dotted prefix under the package; the longest prefix that matches a module names its room.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("spec",),
    (
        "harness.violation",
        "harness.observations",
        "harness.contract",
        "harness.exception_text",
        "harness.scratch",
        "harness.tracebacks",
        "harness.clock",
    ),
    ("fixtures",),
    ("implementations.reference",),
    ("implementations.broken", "implementations.alternatives"),
    ("connect",),
    # the package's public surface re-exports the harness
    ("harness", ""),
    ("run",),
    ("report",),
    ("conformance",),
    ("plugin", "hookspecs", "cli"),
)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    lineno: int
    local: bool
    typing_only: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _marked(tree: ast.AST, kind: type | tuple[type, ...], test: str | None = None) -> set[int]:
    """ids of the nodes inside functions (``kind``) or inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, kind) and (test is None or test in ast.unparse(node.test)):  # type: ignore[attr-defined]
            inside |= {id(n) for n in ast.walk(node) if n is not node}
    return inside


def edges(known: Mapping[str, Path]) -> Iterator[Edge]:
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_function = _marked(tree, (ast.FunctionDef, ast.AsyncFunctionDef))
        typing_only = _marked(tree, ast.If, "TYPE_CHECKING")
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            else:
                continue
            for target in targets:
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]
                if target in known and target != name:
                    yield Edge(
                        name, target, node.lineno, id(node) in in_function, id(node) in typing_only
                    )


def layer_of(module: str) -> int:
    inner = module.removeprefix(PACKAGE).removeprefix(".")
    best, found = -1, None
    for level, rooms in enumerate(LAYERS):
        for room in rooms:
            matches = inner == room or inner.startswith(room + ".")
            if matches and len(room) > best:
                best, found = len(room), level
    if found is None:
        raise AssertionError(f"{module} belongs to no room of LAYERS: add its room")
    return found


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_cycle_even_through_imports_inside_functions() -> None:
    graph: dict[str, set[str]] = {}
    for edge in edges(modules()):
        if not edge.typing_only:
            graph.setdefault(edge.source, set()).add(edge.target)
    assert cycles(graph) == []


def test_each_room_imports_only_from_the_rooms_below_it() -> None:
    wrong = [
        f"{e.source}:{e.lineno} imports {e.target}" + (" (inside a function)" if e.local else "")
        for e in edges(modules())
        if not e.typing_only and layer_of(e.target) > layer_of(e.source)
    ]
    assert wrong == []


def test_the_reference_is_a_plain_library() -> None:
    """It imports neither pytest nor anything of the kit outside itself."""
    known = modules()
    reference = f"{PACKAGE}.implementations.reference"
    outside = [
        f"{e.source}:{e.lineno} imports {e.target}"
        for e in edges(known)
        if e.source.startswith(reference) and not e.target.startswith(reference)
    ]
    assert outside == []
    for name, path in known.items():
        if name.startswith(reference):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
            names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
            assert not {n for n in names if n.split(".")[0] in ("pytest", "_pytest")}, name


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(
    graph: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert cycles(graph) == expected


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    """The checks see a function-local import: a module pair that imports each other, one of
    them lazily, is a cycle."""
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    import a\n")
    known = {"a": tmp_path / "a.py", "b": tmp_path / "b.py"}
    found = list(edges(known))
    assert {(e.source, e.target, e.local) for e in found} == {("a", "b", False), ("b", "a", True)}
