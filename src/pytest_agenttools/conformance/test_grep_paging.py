"""grep: order, result caps, offset paging, long lines, and the properties over random trees."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    SAFE_TEXT,
    content,
    found_files,
    needle_lines,
    page_through,
    result_cap,
    search,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import expect_ok, grep_obs, precondition
from pytest_agenttools.harness.markers import clause, feature

N = trees.NEEDLE


def grep(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "grep", **arguments)


@clause("GREP-ORDER-01")
def test_files_mode_newest_first(tools: ToolClient, ws: Workspace) -> None:
    names = ["b.txt", "a.txt", "sub/c.txt", "d.txt"]
    trees.build(ws.root, {name: f"{N}\n" for name in names})
    trees.set_mtimes(ws.root, ["d.txt", "sub/c.txt", "a.txt", "b.txt"])
    result = expect_ok(grep(tools, pattern=N))
    assert found_files(result, ws) == ["b.txt", "a.txt", "sub/c.txt", "d.txt"]


@clause("GREP-ORDER-01")
def test_equal_mtimes_by_path(tools: ToolClient, ws: Workspace) -> None:
    names = ["zeta.txt", "alpha/b.txt", "Beta.txt", "alpha.txt", "é.txt", "alpha-b.txt"]
    trees.build(ws.root, {name: f"{N}\n" for name in names})
    stamp = 1_700_000_000_000_000_000
    for name in names:
        os.utime(ws.file(name), ns=(stamp, stamp))
    assert found_files(expect_ok(grep(tools, pattern=N)), ws) == sorted(names)


@clause("GREP-ORDER-01")
@feature("grep.content")
def test_content_mode_by_path_then_line(tools: ToolClient, ws: Workspace) -> None:
    trees.build(ws.root, {"b.txt": f"{N}\nx\n{N}\n", "a/z.txt": f"{N}\n", "a.txt": f"x\n{N}\n"})
    trees.set_mtimes(ws.root, ["a.txt", "a/z.txt", "b.txt"])
    found = content(expect_ok(grep(tools, pattern=N, output_mode="content")), ws)
    assert [(p, n) for p, n, _, _ in found] == [
        ("a.txt", 2),
        ("a/z.txt", 1),
        ("b.txt", 1),
        ("b.txt", 3),
    ]


@clause("GREP-ORDER-01")
@feature("grep.count")
def test_count_mode_by_path(tools: ToolClient, ws: Workspace) -> None:
    trees.build(ws.root, {"b.txt": f"{N}\n", "a/z.txt": f"{N}\n", "a.txt": f"{N}\n"})
    trees.set_mtimes(ws.root, ["a.txt", "b.txt", "a/z.txt"])
    result = expect_ok(grep(tools, pattern=N, output_mode="count"))
    assert found_files(result, ws) == ["a.txt", "a/z.txt", "b.txt"]


@clause("GREP-CAP-01")
def test_cap_and_continuation(tools: ToolClient, ws: Workspace) -> None:
    cap, count = result_cap(tools, "grep")
    made = trees.make_many_files(ws.root, count)
    result = expect_ok(grep(tools, pattern=N))
    observed = grep_obs(result)
    shown = found_files(result, ws)
    if cap is not None:
        assert len(shown) == cap, f"expected {cap} files (grep.max_results), saw {len(shown)}"
    assert len(shown) < len(made), f"all {len(made)} files in one page: no result cap"
    assert observed.truncated, "more files match than are shown: truncated must be true"
    assert observed.next_offset == len(shown), f"next_offset {observed.next_offset}"
    rest = found_files(expect_ok(grep(tools, pattern=N, offset=len(shown))), ws)
    assert rest and not set(rest) & set(shown), "the next page shows other files"


@clause("GREP-CAP-01")
def test_limit_cannot_exceed_cap(tools: ToolClient, ws: Workspace) -> None:
    cap, count = result_cap(tools, "grep")
    trees.make_many_files(ws.root, count)
    result = expect_ok(grep(tools, pattern=N, limit=count * 10))
    shown = found_files(result, ws)
    assert len(shown) == cap if cap is not None else len(shown) < count, len(shown)
    assert grep_obs(result).next_offset == len(shown)


@clause("GREP-CAP-01")
def test_limit_below_cap(tools: ToolClient, ws: Workspace) -> None:
    trees.make_many_files(ws.root, 12)
    result = expect_ok(grep(tools, pattern=N, limit=5))
    observed = grep_obs(result)
    assert len(observed.files) == 5 and observed.next_offset == 5 and observed.truncated
    assert observed.total in (None, 12)


@clause("GREP-CAP-01")
@feature("grep.content")
def test_content_mode_cap(tools: ToolClient, ws: Workspace) -> None:
    cap, count = result_cap(tools, "grep")
    ws.put("many.txt", f"{N}\n" * count)
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    found = [x for x in content(result, ws) if x[3]]
    if cap is not None:
        assert len(found) == cap, f"expected {cap} matching lines, saw {len(found)}"
    assert len(found) < count and grep_obs(result).next_offset == len(found)


@clause("GREP-PAGE-01")
def test_paging_thousands_of_files(tools: ToolClient, ws: Workspace) -> None:
    made = trees.make_many_files(ws.root, 1000)
    trees.set_mtimes(ws.root, made)
    tools.configure(**{"grep.max_results": 300})
    seen = page_through(tools, "grep", ws, pattern=N)
    assert len(seen) == len(set(seen)) == 1000, f"{len(seen)} results, {len(set(seen))} distinct"
    assert seen == list(reversed(made)), "pages must follow the newest-first order"


@clause("GREP-PAGE-01")
@feature("grep.content")
@given(lines=st.integers(1, 30), page=st.integers(2, 9), context=st.integers(0, 3))
@example(lines=7, page=1, context=1)
@settings(max_examples=examples(20))
def test_paging_content_exactly_once(
    tools: ToolClient, ws: Workspace, manifest: Manifest, lines: int, page: int, context: int
) -> None:
    where = ws.subdir()
    text = "".join(f"{N} {i}\n" if i % 3 else f"other {i}\n" for i in range(1, lines + 1))
    where.put("f.txt", text)
    where.put("g/h.txt", f"{N} again\n")
    extra = {"context": context} if manifest.has_feature("grep.context") else {}
    seen = page_through(
        tools, "grep", ws, str(where.root), pattern=N, path=str(where.root),
        output_mode="content", limit=page, **extra,
    )  # fmt: skip
    expected = [("f.txt", n, f"{N} {n}") for n in range(1, lines + 1) if n % 3]
    assert seen == [*expected, ("g/h.txt", 1, f"{N} again")], "each match once, in order"


@clause("GREP-PAGE-01")
@given(count=st.integers(1, 20), page=st.integers(2, 8))
@example(count=4, page=1)
@settings(max_examples=examples(15))
def test_paging_files_exactly_once(tools: ToolClient, ws: Workspace, count: int, page: int) -> None:
    where = ws.subdir()
    made = trees.make_many_files(where.root, count, per_dir=7)
    trees.set_mtimes(where.root, made)
    seen = page_through(
        tools, "grep", ws, str(where.root), pattern=N, path=str(where.root), limit=page
    )
    assert seen == list(reversed(made))


@clause("GREP-LINE-01")
@feature("grep.content")
def test_long_line_cut(tools: ToolClient, ws: Workspace) -> None:
    limit = tools.limit("grep.max_line_chars")
    if tools.configure(**{"grep.max_line_chars": 50}):
        cap, unit = 50, limit.unit if limit else "chars"
        size = 500
    elif limit is not None:
        cap, unit, size = int(limit.value), limit.unit, int(limit.value) * 3
    else:
        cap, unit, size = None, "chars", 4 * 1024 * 1024  # the probe: a matching line of 4 MiB
    long_line = N + "é" * size
    ws.put("min.js", long_line + "\nshort " + N + "\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    # context lines nobody asked for are GREP-CTX-01's concern: the cut is judged on the matches
    lines = [x for x in grep_obs(result).lines if x.match]
    with precondition("GREP-MODE-02", "content mode must list the two matching lines"):
        assert [x.line for x in lines] == [1, 2], lines
    first, second = lines
    shown = len(first.text.encode()) if unit == "bytes" else len(first.text)
    if cap is not None:
        assert shown <= cap, f"a line of {shown} {unit} shown; grep.max_line_chars is {cap}"
    else:
        assert shown < size, "a 4 MiB line shown whole: no line cap"
    assert first.cut, "a cut line is marked cut"
    assert long_line.startswith(first.text), "the cut line starts as the file's line does"
    assert second.text == f"short {N}" and not second.cut


@clause("GREP-PRES-04")
@feature("grep.content")
def test_cut_line_is_announced(tools: ToolClient, ws: Workspace) -> None:
    limit = tools.limit("grep.max_line_chars")
    if tools.configure(**{"grep.max_line_chars": 50}):
        size = 500
    elif limit is not None:
        size = int(limit.value) * 3
    else:
        size = 4 * 1024 * 1024
    ws.put("min.js", N + "é" * size + "\n")
    cut_result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    cut = [x for x in grep_obs(cut_result).lines if x.match]
    with precondition("GREP-LINE-01", "the long matching line must be shown cut"):
        assert len(cut) == 1 and cut[0].cut, f"the long line is not marked cut: {cut}"
    shown = cut[0].text
    ws.put("min.js", shown + "\n")
    whole_result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    whole = [x for x in grep_obs(whole_result).lines if x.match]
    with precondition("GREP-LINE-01", "a line no longer than the cap is shown whole"):
        assert len(whole) == 1 and not whole[0].cut and whole[0].text == shown, whole
    assert cut_result.text != whole_result.text, (
        f"the matching line ({size + len(N)} characters) was cut to {len(shown)}, and the "
        "observation says so, but the text is the same as for a file whose line really ends "
        "there: the text must say that the line was cut"
    )


@clause("GREP-LIT-01")
@feature("grep.literal", "grep.content")
@given(
    needle=st.text(SAFE_TEXT, min_size=1, max_size=5),
    lines=st.lists(st.text(SAFE_TEXT, max_size=16), min_size=1, max_size=16),
)
@settings(max_examples=examples(50))
def test_literal_matches_plain_scan(
    tools: ToolClient, ws: Workspace, needle: str, lines: list[str]
) -> None:
    where = ws.subdir()
    text = "\n".join(lines) + "\n"
    where.put("f.txt", text)
    result = expect_ok(
        grep(tools, pattern=needle, path=str(where.root), literal=True, output_mode="content")
    )
    found = [(n, t) for _, n, t, m in content(result, ws) if m]
    expected = list(needle_lines(text, needle))
    assert found == expected, f"literal {needle!r}: expected {expected}, saw {found}"
