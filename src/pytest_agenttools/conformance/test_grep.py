"""grep: arguments, modes, literal and case, flag-like patterns, the glob argument, paths.

Every verdict reads ``details.observation``; the text is judged only in test_grep_text.py.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import content, counts, grep_files, search
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import expect_error, expect_ok, grep_obs
from pytest_agenttools.harness.markers import clause, feature

N = trees.NEEDLE


def grep(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "grep", **arguments)


@pytest.fixture
def project(ws: Workspace) -> Workspace:
    trees.make_project(ws.root)
    return ws


CORE_BAD = [
    {},
    {"pattern": ""},
    {"pattern": 5},
    {"pattern": ["x"]},
    {"pattern": "x", "offset": -1},
    {"pattern": "x", "offset": "3"},
    {"pattern": "x", "limit": 0},
    {"pattern": "x", "ignore_case": "yes"},
    {"pattern": "x", "path": 7},
]
CORE_IDS = [
    "missing",
    "empty",
    "int",
    "list",
    "offset",
    "offset-str",
    "limit",
    "ignore-case-str",
    "path-int",
]


@clause("GREP-ARG-01")
@pytest.mark.parametrize("arguments", CORE_BAD, ids=CORE_IDS)
def test_bad_arguments(tools: ToolClient, ws: Workspace, arguments: dict[str, Any]) -> None:
    ws.put("a.txt", "x\n")
    expect_error(grep(tools, **arguments), what=f"grep({arguments})")


@clause("GREP-ARG-01")
@feature("grep.content")
@pytest.mark.parametrize("mode", ["lines", "CONTENT", ""])
def test_bad_output_mode(tools: ToolClient, ws: Workspace, mode: str) -> None:
    ws.put("a.txt", "x\n")
    expect_error(grep(tools, pattern="x", output_mode=mode), what=f"output_mode={mode!r}")


@clause("GREP-ARG-01")
@feature("grep.content", "grep.context")
@pytest.mark.parametrize("context", [-2, "2", 1.5])
def test_bad_context(tools: ToolClient, ws: Workspace, context: Any) -> None:
    ws.put("a.txt", "x\n")
    result = grep(tools, pattern="x", output_mode="content", context=context)
    expect_error(result, what=f"context={context!r}")


@clause("GREP-ARG-01")
@feature("grep.literal")
@pytest.mark.parametrize("literal", ["yes", 1])
def test_bad_literal(tools: ToolClient, ws: Workspace, literal: Any) -> None:
    ws.put("a.txt", "x\n")
    expect_error(grep(tools, pattern="x", literal=literal), what=f"literal={literal!r}")


@clause("GREP-MODE-01")
def test_files_with_matches_default(tools: ToolClient, ws: Workspace) -> None:
    ws.put("a.txt", f"one {N}\ntwo {N}\n")
    ws.put("sub/deeper/b.md", f"{N}\n")
    ws.put("c.txt", "nothing here\n")
    assert grep_files(tools, ws, pattern=N) == {"a.txt", "sub/deeper/b.md"}


@clause("GREP-MODE-01")
def test_path_argument_narrows_the_search(tools: ToolClient, ws: Workspace) -> None:
    ws.put("pkg/mod/x.py", f"{N}\n")
    ws.put("other/y.py", f"{N}\n")
    assert grep_files(tools, ws, pattern=N, path="pkg") == {"pkg/mod/x.py"}
    absolute = str(ws.file("pkg"))
    assert grep_files(tools, ws, pattern=N, path=absolute) == {"pkg/mod/x.py"}


@clause("GREP-MODE-02")
@feature("grep.content")
def test_content_mode_line_numbers_and_text(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.py", f"first\n  indented {N}(x)\t tab\nthird\nlast {N}")
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    assert content(result, ws) == [
        ("f.py", 2, f"  indented {N}(x)\t tab", True),
        ("f.py", 4, f"last {N}", True),
    ]


@clause("GREP-MODE-02")
@feature("grep.content")
def test_content_mode_unicode_and_crlf(tools: ToolClient, ws: Workspace) -> None:
    ws.put("u.txt", f"café {N} 中文 😀\r\nplain\r\n".encode())
    found = content(expect_ok(grep(tools, pattern=N, output_mode="content")), ws)
    # the observation keeps a CR as part of the line; a tool may also drop it
    assert [(p, n, t.rstrip("\r"), m) for p, n, t, m in found] == [
        ("u.txt", 1, f"café {N} 中文 😀", True)
    ]


@clause("GREP-MODE-03")
@feature("grep.count")
def test_count_mode(tools: ToolClient, ws: Workspace) -> None:
    ws.put("a.txt", f"{N} {N}\n{N}\nnone\n")
    ws.put("b/c.txt", f"x {N}\n")
    ws.put("d.txt", "none\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="count"))
    assert counts(result, ws) == {"a.txt": 3, "b/c.txt": 1}


@clause("GREP-CTX-01")
@feature("grep.content", "grep.context")
def test_context_lines(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", f"l1\nl2\n{N} 3\nl4\nl5\nl6\nl7\n{N} 8\nl9\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="content", context=1))
    assert [(n, t, m) for _, n, t, m in content(result, ws)] == [
        (2, "l2", False),
        (3, f"{N} 3", True),
        (4, "l4", False),
        (7, "l7", False),
        (8, f"{N} 8", True),
        (9, "l9", False),
    ]
    assert grep_obs(result).total in (None, 2), "context lines are not results"


@clause("GREP-CTX-01")
@feature("grep.content", "grep.context")
def test_context_at_file_edges_and_overlaps(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", f"{N} 1\n{N} 2\nl3\nl4\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="content", context=3))
    assert [(n, m) for _, n, _, m in content(result, ws)] == [
        (1, True),
        (2, True),
        (3, False),
        (4, False),
    ], "each line once, none before line 1 or after the last"


@clause("GREP-LIT-01")
@feature("grep.literal", "grep.content")
@pytest.mark.parametrize("needle", ["foo(bar[0])", "a.b*c", "$x\\d+", "^start", "[x", "a|b"])
def test_literal_metacharacters(tools: ToolClient, ws: Workspace, needle: str) -> None:
    ws.put("f.txt", f"keep {needle} here\naXb\nfoo(bar\nstart {needle}\na\nb\n")
    result = expect_ok(grep(tools, pattern=needle, literal=True, output_mode="content"))
    assert [n for _, n, _, m in content(result, ws) if m] == [1, 4], f"literal {needle!r}"


@clause("GREP-CASE-01")
def test_ignore_case(tools: ToolClient, ws: Workspace) -> None:
    ws.put("upper.txt", "NEEDLE\n")
    ws.put("mixed.txt", "NeEdLe\n")
    ws.put("lower.txt", "needle\n")
    ws.put("none.txt", "nothing\n")
    assert grep_files(tools, ws, pattern="needle") == {"lower.txt"}
    assert grep_files(tools, ws, pattern="needle", ignore_case=False) == {"lower.txt"}
    assert grep_files(tools, ws, pattern="needle", ignore_case=True) == {
        "upper.txt",
        "mixed.txt",
        "lower.txt",
    }


@clause("GREP-FLAG-01")
@pytest.mark.parametrize(
    "pattern", ["--help", "--pre=cat", "-e", "--files", "-v", "--version", "-l"]
)
def test_flag_like_pattern_is_text(tools: ToolClient, ws: Workspace, pattern: str) -> None:
    ws.put("has.txt", f"the option {pattern} appears\n")
    ws.put("plain.txt", "nothing\n")
    ws.put("other.md", "help pre cat files version\n")
    assert grep_files(tools, ws, pattern=pattern) == {"has.txt"}


@clause("GREP-FLAG-01")
@feature("grep.literal")
def test_flag_like_literal_pattern(tools: ToolClient, ws: Workspace) -> None:
    ws.put("has.txt", "--pre=cat\n")
    ws.put("other.txt", "pre cat\n")
    assert grep_files(tools, ws, pattern="--pre=cat", literal=True) == {"has.txt"}


@clause("GREP-REGEX-01")
@pytest.mark.parametrize("pattern", ["foo(", "[unclosed", "a{2,1}", "(?<"])
def test_invalid_regex_is_an_error(tools: ToolClient, ws: Workspace, pattern: str) -> None:
    ws.put("a.txt", "foo(\n[unclosed\n")
    expect_error(grep(tools, pattern=pattern), what=f"invalid regex {pattern!r}")


@clause("GREP-HIDDEN-01")
def test_hidden_files_searched(project: Workspace, tools: ToolClient) -> None:
    found = grep_files(tools, project, pattern=N)
    assert {".eslintrc", ".github/workflows/ci.yml"} <= found, sorted(found)


@clause("GREP-GLOB-01")
@pytest.mark.parametrize(
    ("glob", "suffixes", "expected"),
    [
        ("*.py", (".py",), {"src/app.py"}),
        ("*.{ts,tsx}", (".ts", ".tsx"), {"src/web/index.ts", "src/web/view.tsx"}),
        ("src/*.py", (".py",), {"src/app.py"}),
    ],
    ids=["extension", "brace-list", "directory"],
)
def test_glob_argument(
    project: Workspace, tools: ToolClient, glob: str, suffixes: tuple[str, ...], expected: set[str]
) -> None:
    """Among the files a default search shows, exactly those the glob matches. Whether the
    gitignored and dependency files show up is judged by their own clauses (with their
    features), so a file of those may appear, but only if the glob matches it too."""
    found = grep_files(tools, project, pattern=N, glob=glob)
    assert found & set(trees.ORDINARY) == expected, sorted(found)
    assert found <= set(trees.PROJECT), f"paths not in the project: {sorted(found)}"
    assert all(path.endswith(suffixes) for path in found), f"{glob} matched {sorted(found)}"


@clause("GREP-GLOB-01")
def test_glob_star_and_negation(project: Workspace, tools: ToolClient) -> None:
    assert grep_files(tools, project, pattern=N, glob="src/*.ts") == set(), "* never crosses /"
    without_md = grep_files(tools, project, pattern=N, glob="!*.md")
    assert "README.md" not in without_md and "src/app.py" in without_md


@clause("GREP-GLOB-01")
def test_glob_list_and_file_path(project: Workspace, tools: ToolClient) -> None:
    assert grep_files(tools, project, pattern=N, glob=["*.txt", "*.yml"]) == {
        "docs/guide.txt",
        ".github/workflows/ci.yml",
    }
    assert grep_files(tools, project, pattern=N, path="src/app.py", glob="*.md") == {
        "src/app.py"
    }, "a file named by path is searched whatever the glob"


@clause("GREP-NONE-01")
@pytest.mark.parametrize(
    "mode",
    [
        "files_with_matches",
        pytest.param("content", marks=feature("grep.content")),
        pytest.param("count", marks=feature("grep.count")),
    ],
)
def test_no_match_is_success(tools: ToolClient, ws: Workspace, mode: str) -> None:
    ws.put("a.txt", "hay\n")
    ws.put("sub/b.txt", "more hay\n")
    arguments: dict[str, Any] = {"pattern": "needle_absent"}
    if mode != "files_with_matches":
        arguments["output_mode"] = mode
    result = expect_ok(grep(tools, **arguments))
    observed = grep_obs(result)
    assert not observed.paths and not observed.lines and not observed.counts, observed.raw
    assert not observed.truncated and observed.next_offset is None
    assert result.text.strip(), "the text must say something (that nothing was found)"


@clause("GREP-PATH-01")
def test_missing_path(tools: ToolClient, ws: Workspace) -> None:
    expect_error(grep(tools, pattern=N, path="no/such/dir"), what="a path that does not exist")


@clause("GREP-PATH-01")
def test_file_path_searches_that_file(tools: ToolClient, ws: Workspace) -> None:
    ws.put("one.txt", f"{N}\n")
    ws.put("two.txt", f"{N}\n")
    assert grep_files(tools, ws, pattern=N, path="one.txt") == {"one.txt"}
    assert grep_files(tools, ws, pattern="absent", path="one.txt") == set()


@clause("GREP-PATH-01")
def test_symlink_loop_root(tools: ToolClient, ws: Workspace) -> None:
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    expect_error(grep(tools, pattern=N, path="loop_a"), what="a symbolic link loop")


@clause("GREP-PATH-02")
def test_links_inside_tree(tools: ToolClient, ws: Workspace) -> None:
    ws.put("real/a.txt", f"{N}\n")
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    os.symlink(".", ws.file("real/self"))
    os.symlink("/nonexistent/target", ws.file("dangling"))
    assert grep_files(tools, ws, pattern=N) == {"real/a.txt"}


@clause("GREP-PATH-02")
def test_unreadable_directory_skipped(tools: ToolClient, ws: Workspace) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every directory, so none is unreadable")
    ws.put("open/a.txt", f"{N}\n")
    ws.put("closed/b.txt", f"{N}\n")
    os.chmod(ws.file("closed"), 0)
    try:
        assert grep_files(tools, ws, pattern=N) == {"open/a.txt"}
        expect_error(grep(tools, pattern=N, path="closed"), what="an unreadable root")
    finally:
        os.chmod(ws.file("closed"), 0o755)


@clause("GREP-PATH-03")
def test_non_utf8_file_name(tools: ToolClient, ws: Workspace) -> None:
    try:
        with open(os.path.join(os.fsencode(ws.root), b"caf\xe9.txt"), "wb") as handle:
            handle.write(f"{N}\n".encode())
    except OSError as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    ws.put("plain.txt", f"{N}\n")
    assert grep_files(tools, ws, pattern=N) == {"caf\ufffd.txt", "plain.txt"}
