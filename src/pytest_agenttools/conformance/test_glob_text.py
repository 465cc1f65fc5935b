"""glob: what the model-facing text must carry, judged neutrally (any layout, wording, paths)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    expect_carries_results,
    letter_names,
    search,
)
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import (
    expect_error,
    expect_names_argument,
    expect_names_path,
    expect_number,
    expect_ok,
    glob_obs,
    precondition,
)
from pytest_agenttools.harness.markers import clause, feature


def glob(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "glob", **arguments)


@clause("GLOB-PRES-01")
@pytest.mark.parametrize(
    ("pattern", "root"),
    [("**/*.py", None), ("**", "src"), ("**/*.ts", None), ("**/*.txt", "docs")],
)
def test_text_carries_every_path(
    tools: ToolClient, ws: Workspace, pattern: str, root: str | None
) -> None:
    trees.make_project(ws.root, secrets=False)
    ws.put("src/ünï/cödé.py", "")
    arguments: dict[str, Any] = {"pattern": pattern, **({"path": root} if root else {})}
    result = expect_ok(glob(tools, **arguments))
    assert glob_obs(result).paths, "the pattern matches files"
    expect_carries_results(result, ws, root)


@clause("GLOB-PRES-01")
@feature("glob.sort_modified")
def test_text_carries_newest_first(tools: ToolClient, ws: Workspace) -> None:
    names = letter_names(9, ".md")
    trees.build(ws.root, {f"notes/{n}": "" for n in names})
    trees.set_mtimes(ws.root, [f"notes/{n}" for n in names])
    result = expect_ok(glob(tools, pattern="**/*.md", sort="modified"))
    expect_carries_results(result, ws)


@clause("GLOB-PRES-02")
def test_cut_names_the_offset_to_continue(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    names = letter_names(31)
    trees.build(ws.root, {f"lib/{name}": "" for name in names})
    base = manifest.offset_base("glob")
    offset = 0
    for _ in range(3):
        result = glob(tools, pattern="**/*.txt", limit=7, offset=offset)
        with precondition("GLOB-CAP-01", "a page of 7 of 31 files must be cut with next_offset"):
            observed = glob_obs(expect_ok(result))
            assert observed.next_offset is not None, "no next_offset: the page was not cut"
        expect_number(result, observed.next_offset + base, "the offset to continue from", ws.root)
        offset = observed.next_offset


BAD = [
    pytest.param({}, ("pattern",), id="missing-pattern"),
    pytest.param({"pattern": 3}, ("pattern",), id="pattern-int"),
    pytest.param({"pattern": ""}, ("pattern",), id="pattern-empty"),
    pytest.param({"pattern": "*", "offset": -1}, ("offset",), id="offset"),
    pytest.param({"pattern": "*", "limit": 0}, ("limit",), id="limit"),
    pytest.param(
        {"pattern": "*", "sort": "size"},
        ("sort",),
        id="sort",
        marks=feature("glob.sort_modified"),
    ),
    pytest.param(
        {"pattern": "*", "include_ignored": "yes"},
        ("include_ignored",),
        id="include-ignored",
        marks=feature("glob.include_ignored"),
    ),
]


@clause("GLOB-PRES-03")
@pytest.mark.parametrize(("arguments", "names"), BAD)
def test_error_names_the_argument(
    tools: ToolClient,
    ws: Workspace,
    manifest: Manifest,
    arguments: dict[str, Any],
    names: tuple[str, ...],
) -> None:
    ws.put("a.txt", "")
    result = glob(tools, **arguments)
    with precondition("GLOB-ARG-01", "the bad call must be refused for the refusal to be judged"):
        expect_error(result, what=f"glob({arguments})")
    expect_names_argument(result, manifest, "glob", *names)


@clause("GLOB-PRES-03")
@pytest.mark.parametrize("path", ["nope", "no/such/dir", "a.txt"])
def test_error_names_the_path(tools: ToolClient, ws: Workspace, path: str) -> None:
    ws.put("a.txt", "")
    result = glob(tools, pattern="*", path=path)
    with precondition("GLOB-PATH-01", "the bad path must be refused for the refusal to be judged"):
        expect_error(result, what=f"path={path!r}")
    expect_names_path(result, path, str(ws.root))
