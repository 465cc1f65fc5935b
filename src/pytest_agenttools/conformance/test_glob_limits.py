"""glob: result caps, paging, the output cap, the deadline, and hostile input.

Bounds are tested against the declared limit (shrunk with ``configure`` where allowed); an
undeclared limit is probed with input far beyond any sane cap, and the answer must be bounded.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    PROBE_FILES,
    expect_clean,
    found_files,
    glob_paths,
    page_through,
    result_cap,
    search,
    timeout_case,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import expect_ok, glob_obs
from pytest_agenttools.harness.markers import clause, feature


def glob(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "glob", **arguments)


@clause("GLOB-CAP-01")
def test_cap_and_continuation(tools: ToolClient, ws: Workspace) -> None:
    cap, count = result_cap(tools, "glob")
    made = trees.make_many_files(ws.root, count, content="")
    result = expect_ok(glob(tools, pattern="**/*.txt"))
    observed = glob_obs(result)
    shown = found_files(result, ws)
    if cap is not None:
        assert len(shown) == cap, f"expected {cap} files (glob.max_results), saw {len(shown)}"
    assert len(shown) < len(made), f"all {len(made)} files in one page: no result cap"
    assert observed.truncated and observed.next_offset == len(shown), observed.raw
    assert shown == sorted(made)[: len(shown)], "the first page of the path order"
    limited = glob_paths(tools, ws, pattern="**/*.txt", limit=count * 10)
    assert limited == shown, "a limit above the cap does not raise it"


@clause("GLOB-CAP-01")
def test_limit_below_cap(tools: ToolClient, ws: Workspace) -> None:
    trees.make_many_files(ws.root, 12, content="")
    observed = glob_obs(expect_ok(glob(tools, pattern="**/*.txt", limit=5)))
    assert len(observed.paths) == 5 and observed.next_offset == 5 and observed.truncated
    assert observed.total in (None, 12)


@clause("GLOB-PAGE-01")
def test_paging_thousands(tools: ToolClient, ws: Workspace) -> None:
    made = trees.make_many_files(ws.root, 2500, content="")
    tools.configure(**{"glob.max_results": 600})
    seen = page_through(tools, "glob", ws, pattern="**/*.txt")
    assert seen == sorted(made), "every file once, in path order"


@clause("GLOB-PAGE-01")
@given(count=st.integers(1, 20), page=st.integers(2, 7), modified=st.booleans())
@example(count=4, page=1, modified=False)
@settings(max_examples=examples(20))
def test_paging_exactly_once(
    tools: ToolClient, ws: Workspace, count: int, page: int, modified: bool
) -> None:
    where = ws.subdir()
    made = trees.make_many_files(where.root, count, per_dir=4, content="")
    trees.set_mtimes(where.root, made)
    extra: dict[str, Any] = {}
    if modified and tools.manifest.has_feature("glob.sort_modified"):
        extra = {"sort": "modified"}
    seen = page_through(
        tools, "glob", ws, str(where.root), pattern="**", path=str(where.root), limit=page, **extra
    )
    assert seen == (list(reversed(made)) if extra else sorted(made))


@clause("GLOB-OUT-01")
def test_output_cap(tools: ToolClient, ws: Workspace) -> None:
    cap = 4096
    stem = "output_cap_" + "n" * 100
    if tools.configure(**{"glob.max_output_bytes": cap}):
        tools.configure(**{"glob.max_results": 1000})
        count = 300
    else:
        declared = tools.limit("glob.max_output_bytes")
        if declared is None or declared.value > 2 * 1024 * 1024:
            probe_output(tools, ws)
            return
        cap = int(declared.value)
        count = min(cap // 100 + 50, PROBE_FILES)
    trees.make_many_files(ws.root, count, content="", stem=stem)
    result = expect_ok(glob(tools, pattern="**"))
    shown = found_files(result, ws)
    size = sum(len(p.encode()) + 1 for p in shown)
    assert size <= cap, f"{len(shown)} paths ({size:,} bytes) shown from output capped at {cap:,}"
    assert glob_obs(result).truncated, f"{count} files match but {len(shown)} are shown"


def probe_output(tools: ToolClient, ws: Workspace) -> None:
    """Undeclared: 20,000 files with names of 200 bytes come back bounded."""
    trees.make_many_files(ws.root, PROBE_FILES, per_dir=1000, content="", stem="p" * 190)
    result = expect_ok(glob(tools, pattern="**"))
    assert len(result.text) < 2 * 1024 * 1024, f"a {len(result.text):,}-character listing"
    assert glob_obs(result).truncated, "20,000 files cannot all be listed in one answer"


@clause("GLOB-TIME-01")
def test_timeout(tools: ToolClient, ws: Workspace, pytestconfig: pytest.Config) -> None:
    case = timeout_case(tools, pytestconfig, "glob")
    trees.make_many_files(ws.root, case.files, content="")
    started = time.monotonic()
    result = tools.call("glob", _timeout=case.call_timeout, pattern="**/f*0*.txt")
    case.judge(result, time.monotonic() - started)


HOSTILE_DEADLINE = 20.0
HUGE = "x" * (128 * 1024)


@clause("GLOB-INPUT-01")
@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"pattern": "a\x00*"}, id="pattern-nul"),
        pytest.param({"pattern": "*.\ud800"}, id="pattern-surrogate"),
        pytest.param({"pattern": HUGE}, id="pattern-128KiB"),
        pytest.param({"pattern": "**/" + "{a,b}" * 40}, id="pattern-braces"),
        pytest.param({"pattern": "["}, id="pattern-bad-class"),
        pytest.param({"pattern": "[z-a]/*"}, id="pattern-bad-range"),
        pytest.param({"pattern": "*", "path": "a\ud800"}, id="path-surrogate"),
        pytest.param({"pattern": "*", "path": HUGE}, id="path-128KiB"),
        pytest.param({"pattern": "**", "offset": 10**12}, id="offset-1e12"),
        pytest.param({"pattern": "**", "limit": 10**12}, id="limit-1e12"),
        pytest.param({"pattern": "**", "limit": 10**30}, id="limit-1e30"),
        pytest.param(
            {"pattern": "**", "include_ignored": True, "path": "sub"},
            id="include-ignored",
            marks=feature("glob.include_ignored"),
        ),
    ],
)
def test_hostile_input_answered_cleanly(
    tools: ToolClient, ws: Workspace, arguments: dict[str, Any]
) -> None:
    ws.put("a.txt", "")
    ws.put("sub/b.txt", "")
    result = tools.call("glob", _timeout=HOSTILE_DEADLINE, **arguments)
    expect_clean(result, f"glob with {list(arguments)}")
    if not result.is_error and arguments.get("limit"):
        assert found_files(result, ws) == ["a.txt", "sub/b.txt"]
