"""grep: what the model-facing text must carry, judged neutrally (any layout, wording, path form).

The behaviour is judged on the observation elsewhere; here the text is cross-checked against
it: every result appears in some form and in order, a cut names the offset to continue from in
the implementation's own base, and an error names its argument in the implementation's words.
"""

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
    grep_obs,
    precondition,
)
from pytest_agenttools.harness.markers import clause, feature

N = trees.NEEDLE


def grep(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "grep", **arguments)


MODES = [
    pytest.param({}, id="files"),
    pytest.param({"output_mode": "content"}, id="content", marks=feature("grep.content")),
    pytest.param(
        {"output_mode": "content", "context": 1},
        id="content-context",
        marks=feature("grep.content", "grep.context"),
    ),
    pytest.param({"output_mode": "count"}, id="count", marks=feature("grep.count")),
]


@clause("GREP-PRES-01")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("root", [None, "src"])
def test_text_carries_every_result(
    tools: ToolClient, ws: Workspace, mode: dict[str, Any], root: str | None
) -> None:
    trees.make_project(ws.root, secrets=False)
    ws.put("src/many.txt", f"{N} 1\nplain\n{N} 3\n{N} {N} 4\n")
    arguments = {"pattern": N, **mode, **({"path": root} if root else {})}
    result = expect_ok(grep(tools, **arguments))
    assert grep_obs(result).paths, "the search finds files"
    expect_carries_results(result, ws, root)


@clause("GREP-PRES-01")
@feature("grep.content")
def test_text_carries_unicode_lines(tools: ToolClient, ws: Workspace) -> None:
    ws.put("ünï/cödé.py", f"x = '{N} ☃ 中文'\n\ty = '{N}'\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    expect_carries_results(result, ws)


@clause("GREP-PRES-02")
@pytest.mark.parametrize("mode", MODES)
def test_cut_names_the_offset_to_continue(
    tools: ToolClient, ws: Workspace, manifest: Manifest, mode: dict[str, Any]
) -> None:
    names = letter_names(31)
    trees.build(ws.root, {f"lib/{name}": f"{N}\n" for name in names})
    base = manifest.offset_base("grep")
    offset = 0
    for _ in range(3):
        result = grep(tools, pattern=N, limit=7, offset=offset, **mode)
        with precondition("GREP-CAP-01", "a page of 7 of 31 results must be cut with next_offset"):
            observed = grep_obs(expect_ok(result))
            assert observed.next_offset is not None, "no next_offset: the page was not cut"
        expect_number(result, observed.next_offset + base, "the offset to continue from", ws.root)
        offset = observed.next_offset


BAD = [
    pytest.param({}, ("pattern",), id="missing-pattern"),
    pytest.param({"pattern": 5}, ("pattern",), id="pattern-int"),
    pytest.param({"pattern": ""}, ("pattern",), id="pattern-empty"),
    pytest.param({"pattern": "x", "offset": -1}, ("offset",), id="offset"),
    pytest.param({"pattern": "x", "limit": 0}, ("limit",), id="limit"),
    pytest.param({"pattern": "x", "ignore_case": "yes"}, ("ignore_case",), id="ignore-case"),
    pytest.param({"pattern": "foo("}, ("pattern", "literal"), id="invalid-regex"),
    pytest.param(
        {"pattern": "x", "output_mode": "lines"},
        ("output_mode",),
        id="output-mode",
        marks=feature("grep.content"),
    ),
    pytest.param(
        {"pattern": "x", "output_mode": "content", "context": -1},
        ("context",),
        id="context",
        marks=feature("grep.content", "grep.context"),
    ),
    pytest.param(
        {"pattern": "x", "literal": "yes"},
        ("literal",),
        id="literal",
        marks=feature("grep.literal"),
    ),
]


@clause("GREP-PRES-03")
@pytest.mark.parametrize(("arguments", "names"), BAD)
def test_error_names_the_argument(
    tools: ToolClient,
    ws: Workspace,
    manifest: Manifest,
    arguments: dict[str, Any],
    names: tuple[str, ...],
) -> None:
    ws.put("a.txt", "x\nfoo(\n")
    result = grep(tools, **arguments)
    owner = "GREP-REGEX-01" if arguments.get("pattern") == "foo(" else "GREP-ARG-01"
    with precondition(owner, "the bad call must be refused for the refusal to be judged"):
        expect_error(result, what=f"grep({arguments})")
    expect_names_argument(result, manifest, "grep", *names)


@clause("GREP-PRES-03")
@pytest.mark.parametrize("path", ["no/such/dir", "missing.txt"])
def test_error_names_the_path(tools: ToolClient, ws: Workspace, path: str) -> None:
    result = grep(tools, pattern=N, path=path)
    with precondition("GREP-PATH-01", "a missing path must be refused for its text to be judged"):
        expect_error(result, what="a missing path")
    expect_names_path(result, path, str(ws.root))
