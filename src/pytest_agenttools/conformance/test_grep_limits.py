"""grep: resource bounds and hostile input: file sizes, the deadline, the output cap, and
patterns or numbers that once crashed or hung an implementation.

Every bound is tested against the declared limit in its unit (shrunk with ``configure`` where
the implementation allows it); an undeclared limit is probed with input far beyond any sane cap
(src/pytest_agenttools/spec/05-manifest.toml says with what), and the answer must still be bounded.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    PROBE_BYTES,
    expect_clean,
    found_files,
    grep_files,
    search,
    timeout_case,
)
from pytest_agenttools.fixtures import builders, trees
from pytest_agenttools.harness.assertions import expect_error, expect_ok, grep_obs
from pytest_agenttools.harness.markers import clause, feature

N = trees.NEEDLE


def grep(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "grep", **arguments)


def size_cap(tools: ToolClient, small: int = 4096) -> int | None:
    """grep.max_filesize: shrunk to ``small`` where settable, else as declared; None when
    undeclared or beyond the probe (then the probe's 64 MiB file stands in)."""
    if tools.configure(**{"grep.max_filesize": small}):
        return small
    declared = tools.limit("grep.max_filesize")
    if declared is not None and declared.value < PROBE_BYTES:
        return int(declared.value)
    return None


def big_file(ws: Workspace, rel: str, size: int, *, needle_at_end: bool) -> None:
    """A text file of ``size`` bytes (no NUL) with the needle on its first or last line."""
    path = ws.file(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    builders.make_text_file(path, size, line="x" * 63 + "\n")
    needle = f"{N} at the end\n" if needle_at_end else None
    with open(path, "r+b") as handle:
        if needle:
            handle.seek(0, 2)
            handle.write(needle.encode())
        else:
            handle.write(f"{N}\n".encode())


@clause("GREP-SIZE-01")
def test_big_files_skipped(tools: ToolClient, ws: Workspace) -> None:
    cap = size_cap(tools)
    size = cap + 1000 if cap is not None else PROBE_BYTES
    big_file(ws, "big.txt", size, needle_at_end=False)
    ws.put("small.txt", f"{N}\n")
    assert grep_files(tools, ws, pattern=N) == {"small.txt"}, (
        f"a file of {size:,} bytes was searched; grep.max_filesize is {cap or 'undeclared'}"
    )


@clause("GREP-SIZE-02")
@pytest.mark.parametrize(
    "mode", ["files_with_matches", pytest.param("content", marks=feature("grep.content"))]
)
def test_big_named_file_searched_whole_or_refused(
    tools: ToolClient, ws: Workspace, mode: str
) -> None:
    cap = size_cap(tools)
    size = cap + 10_000 if cap is not None else PROBE_BYTES
    big_file(ws, "logs/big.log", size, needle_at_end=True)
    result = grep(tools, pattern=N, path="logs/big.log", output_mode=mode)
    if result.is_error:
        expect_error(result, what="a refused big file")
        return  # refused clearly: allowed
    observed = grep_obs(result)
    assert found_files(result, ws) == ["logs/big.log"], (
        f"the file holds a match on its last line, but the answer shows {observed.raw!r:.300}: "
        "a big file named by path must be searched whole or refused, never answered empty"
    )
    if mode == "content":
        assert [x.text for x in observed.matches] == [f"{N} at the end"]


@clause("GREP-TIME-01")
def test_timeout(tools: ToolClient, ws: Workspace, pytestconfig: pytest.Config) -> None:
    case = timeout_case(tools, pytestconfig, "grep")
    trees.make_many_files(ws.root, case.files)
    started = time.monotonic()
    result = tools.call(
        "grep", _timeout=case.call_timeout, pattern="n.*e.*e.*d.*l.*e", ignore_case=True
    )
    elapsed = time.monotonic() - started
    case.judge(result, elapsed)


@clause("GREP-OUT-01")
def test_output_cap(tools: ToolClient, ws: Workspace) -> None:
    cap = 4096
    if tools.configure(**{"grep.max_output_bytes": cap}):
        tools.configure(**{"grep.max_results": 1000})
        count = 300
    else:
        declared = tools.limit("grep.max_output_bytes")
        if declared is None or declared.value > 4 * 1024 * 1024:
            probe_output(tools, ws)
            return
        cap = int(declared.value)
        count = min(cap // 100 + 50, 20_000)
    stem = "output_cap_" + "n" * 100
    trees.make_many_files(ws.root, count, stem=stem)
    result = expect_ok(grep(tools, pattern=N))
    observed = grep_obs(result)
    shown = found_files(result, ws)
    size = sum(len(p.encode()) + 1 for p in shown)
    assert size <= cap, (
        f"{len(shown)} paths ({size:,} bytes of names) shown from output capped at {cap:,} bytes"
    )
    assert observed.truncated, f"{count} files match but {len(shown)} are shown: truncated"


def probe_output(tools: ToolClient, ws: Workspace) -> None:
    """Undeclared: a search producing 32 MiB of matching lines comes back bounded."""
    mode = "content" if tools.manifest.has_feature("grep.content") else "files_with_matches"
    line = f"{N} " + "y" * 1000 + "\n"
    for index in range(32):
        builders.make_text_file(ws.file(f"out{index:02d}.txt"), 1024 * 1024, line=line)
    result = expect_ok(grep(tools, pattern=N, output_mode=mode))
    assert len(result.text) < 4 * 1024 * 1024, f"a {len(result.text):,}-character answer"
    if mode == "content":
        assert grep_obs(result).truncated, "32 MiB of matching lines cannot all be shown"
    else:
        assert len(found_files(result, ws)) == 32 or grep_obs(result).truncated


def input_cases() -> list[Any]:
    huge = "x" * (128 * 1024)
    content = feature("grep.content")
    return [
        pytest.param({"pattern": "a\x00b"}, id="pattern-nul"),
        pytest.param({"pattern": "a\ud800b"}, id="pattern-surrogate"),
        pytest.param({"pattern": "\udfff"}, id="pattern-lone-low-surrogate"),
        pytest.param({"pattern": "two\nlines"}, id="pattern-newline"),
        pytest.param({"pattern": huge}, id="pattern-128KiB"),
        pytest.param({"pattern": N, "glob": "a\x00"}, id="glob-nul"),
        pytest.param({"pattern": N, "glob": "*.\ud83d"}, id="glob-surrogate"),
        pytest.param({"pattern": N, "glob": huge}, id="glob-128KiB"),
        pytest.param({"pattern": N, "glob": ["*"] * 20000}, id="glob-20000"),
        pytest.param({"pattern": N, "glob": "["}, id="glob-bad-class"),
        pytest.param({"pattern": N, "path": "a\ud800"}, id="path-surrogate"),
        pytest.param({"pattern": N, "path": "a\x00b"}, id="path-nul"),
        pytest.param({"pattern": N, "offset": 10**12}, id="offset-1e12"),
        pytest.param({"pattern": N, "limit": 10**12}, id="limit-1e12"),
        pytest.param({"pattern": N, "offset": 10**30}, id="offset-1e30"),
        pytest.param(
            {"pattern": N, "output_mode": "content", "context": 10**12},
            id="context-1e12",
            marks=[content, feature("grep.context")],
        ),
        pytest.param(
            {"pattern": N, "output_mode": "content", "context": 10**30},
            id="context-1e30",
            marks=[content, feature("grep.context")],
        ),
    ]


#: the deadline of one hostile call: far beyond a correct answer, short enough to fail a hang
HOSTILE_DEADLINE = 20.0


@clause("GREP-INPUT-01")
@pytest.mark.parametrize("arguments", input_cases())
def test_hostile_input_answered_cleanly(
    tools: ToolClient, ws: Workspace, arguments: dict[str, Any]
) -> None:
    ws.put("a.txt", f"one\n{N} two\nthree\n")
    ws.put("sub/b.txt", f"{N}\n")
    result = tools.call("grep", _timeout=HOSTILE_DEADLINE, **arguments)
    expect_clean(result, f"grep with {list(arguments)}")
    if result.is_error:
        return
    observed = grep_obs(result)
    if arguments.get("context"):  # every line of a.txt, the match among them
        assert [(x.line, x.match) for x in observed.lines if x.path.endswith("a.txt")] == [
            (1, False),
            (2, True),
            (3, False),
        ], observed.lines
    if arguments.get("limit"):
        assert set(found_files(result, ws)) == {"a.txt", "sub/b.txt"}
