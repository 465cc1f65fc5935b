"""grep: order, result caps, offset paging, long lines, and the properties over random trees."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools.assertions import continuation_offset, expect_ok
from pytest_agenttools.fixtures import trees
from pytest_agenttools.markers import clause, feature

from .search_strategies import (
    CONTENT_LINE,
    SAFE_TEXT,
    body_lines,
    content_lines,
    is_sensitive,
    listed_paths,
    needle_lines,
    page_through,
    search_trees,
    shown_paths,
    user_globs,
)

N = trees.NEEDLE
PROMPT = 60.0


def grep(tools: Any, **arguments: Any) -> Any:
    return tools.call("grep", _timeout=PROMPT, **arguments)


@clause("GREP-ORDER-01")
def test_files_mode_newest_first(tools: Any, ws: Any) -> None:
    names = ["b.txt", "a.txt", "sub/c.txt", "d.txt"]
    trees.build(ws.root, {name: f"{N}\n" for name in names})
    trees.set_mtimes(ws.root, ["d.txt", "sub/c.txt", "a.txt", "b.txt"])
    result = expect_ok(grep(tools, pattern=N))
    assert listed_paths(result.text, ws.root) == ["b.txt", "a.txt", "sub/c.txt", "d.txt"]


@clause("GREP-ORDER-01")
def test_equal_mtimes_by_path(tools: Any, ws: Any) -> None:
    names = ["zeta.txt", "alpha/b.txt", "Beta.txt", "alpha.txt"]
    trees.build(ws.root, {name: f"{N}\n" for name in names})
    stamp = 1_700_000_000_000_000_000
    for name in names:
        os.utime(ws.file(name), ns=(stamp, stamp))
    result = expect_ok(grep(tools, pattern=N))
    assert listed_paths(result.text, ws.root) == sorted(names), result.text


@clause("GREP-ORDER-01")
@feature("grep.content")
def test_content_mode_by_path_then_line(tools: Any, ws: Any) -> None:
    trees.build(ws.root, {"b.txt": f"{N}\nx\n{N}\n", "a/z.txt": f"{N}\n", "a.txt": f"x\n{N}\n"})
    trees.set_mtimes(ws.root, ["a.txt", "a/z.txt", "b.txt"])
    found = content_lines(expect_ok(grep(tools, pattern=N, output_mode="content")).text, ws.root)
    assert [(p, n) for p, n, _, _ in found] == [
        ("a.txt", 2),
        ("a/z.txt", 1),
        ("b.txt", 1),
        ("b.txt", 3),
    ]


@clause("GREP-CAP-01")
def test_default_cap_and_continuation(tools: Any, ws: Any) -> None:
    cap = tools.limit("grep.max_results")
    trees.make_many_files(ws.root, cap + 30)
    result = expect_ok(grep(tools, pattern=N))
    shown = listed_paths(result.text, ws.root)
    assert len(shown) == cap, f"expected {cap} files (grep.max_results), saw {len(shown)}"
    assert continuation_offset(result) == cap, f"expected offset={cap} to continue"
    assert f"offset={cap}" in result.text, "the notice must say how to continue"
    rest = listed_paths(expect_ok(grep(tools, pattern=N, offset=cap)).text, ws.root)
    assert len(rest) == 30 and not set(rest) & set(shown)


@clause("GREP-CAP-01")
def test_limit_cannot_exceed_cap(tools: Any, ws: Any) -> None:
    cap = tools.limit("grep.max_results")
    trees.make_many_files(ws.root, cap + 5)
    result = expect_ok(grep(tools, pattern=N, limit=cap + 100))
    assert len(listed_paths(result.text, ws.root)) <= cap


@clause("GREP-CAP-01")
@feature("grep.content")
def test_content_mode_cap(tools: Any, ws: Any) -> None:
    cap = tools.limit("grep.max_results")
    ws.put("many.txt", f"{N}\n" * (cap + 7))
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    found = content_lines(result.text, ws.root)
    assert len(found) == cap, f"expected {cap} matching lines, saw {len(found)}"
    assert continuation_offset(result) == cap


@clause("GREP-PAGE-01")
def test_paging_thousands_of_files(tools: Any, ws: Any) -> None:
    made = trees.make_many_files(ws.root, 2000)
    trees.set_mtimes(ws.root, made)
    tools.configure(**{"grep.max_results": 500})
    seen = page_through(tools, "grep", pattern=N)
    assert len(seen) == len(set(seen)) == 2000, f"{len(seen)} results, {len(set(seen))} distinct"
    assert seen == list(reversed(made)), "pages must follow the newest-first order"


@clause("GREP-PAGE-01")
@feature("grep.content")
@given(lines=st.integers(1, 24), page=st.integers(2, 9), context=st.integers(0, 2))
def test_paging_content_exactly_once(
    tools: Any, ws: Any, lines: int, page: int, context: int
) -> None:
    where = ws.subdir()
    text = "".join(f"{N} {i}\n" if i % 3 else f"other {i}\n" for i in range(1, lines + 1))
    where.put("f.txt", text)
    where.put("g/h.txt", f"{N} again\n")
    seen = page_through(
        tools, "grep", pattern=N, path=str(where.root), output_mode="content", limit=page,
        context=context,
    )  # fmt: skip
    parsed = [CONTENT_LINE.match(line) for line in seen]
    matches = [f"{m['path']}:{m['n']}:{m['text']}" for m in parsed if m and m["sep"] == ":"]
    expected = [f"f.txt:{n}:{N} {n}" for n in range(1, lines + 1) if n % 3] + [
        f"g/h.txt:1:{N} again"
    ]
    assert matches == expected, "each match exactly once, in order"


@clause("GREP-LINE-01")
@feature("grep.content")
def test_long_line_cut(tools: Any, ws: Any) -> None:
    cap = tools.limit("grep.max_line_chars")
    if tools.configure(**{"grep.max_line_chars": 50}):
        cap = 50
    ws.put("min.js", N + "x" * (cap * 3) + "\nshort " + N + "\n")
    found = content_lines(expect_ok(grep(tools, pattern=N, output_mode="content")).text, ws.root)
    assert len(found) == 2, found
    first = found[0][2]
    assert first.startswith(N + "x") and len(first) <= cap + 40, f"line of {len(first)} chars"
    assert found[1][2] == f"short {N}"


@clause("GREP-SENS-02")
@given(
    tree=search_trees(), glob=user_globs, mode=st.sampled_from(["files_with_matches", "content"])
)
def test_no_glob_ever_shows_a_secret(
    tools: Any, ws: Any, tree: dict[str, str], glob: str, mode: str
) -> None:
    where = ws.subdir()
    trees.build(where.root, tree)
    result = expect_ok(
        grep(tools, pattern="needle", path=str(where.root), glob=glob, output_mode=mode)
    )
    leaked = [p for p in shown_paths(result.text, where.root) if is_sensitive(p)]
    assert not leaked, f"glob {glob!r} showed {leaked}"


@clause("GREP-LIT-01")
@feature("grep.literal", "grep.content")
@given(
    needle=st.text(SAFE_TEXT, min_size=1, max_size=4),
    lines=st.lists(st.text(SAFE_TEXT, max_size=12), min_size=1, max_size=12),
)
def test_literal_matches_plain_scan(tools: Any, ws: Any, needle: str, lines: list[str]) -> None:
    where = ws.subdir()
    text = "\n".join(lines) + "\n"
    where.put("f.txt", text)
    result = expect_ok(
        grep(tools, pattern=needle, path=str(where.root), literal=True, output_mode="content")
    )
    found = [(n, t) for _, n, t, m in content_lines(result.text, where.root) if m]
    expected = list(needle_lines(text, needle))
    assert found == expected, (
        f"literal {needle!r}: expected {expected}, saw {body_lines(result.text)}"
    )
