"""grep: arguments, modes, literal and case, flag-like patterns, filters, paths and errors."""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools.assertions import expect_error, expect_ok
from pytest_agenttools.fixtures import trees
from pytest_agenttools.markers import clause, feature

from .search_strategies import (
    content_lines,
    count_lines,
    is_sensitive,
    listed_paths,
    shown_paths,
)

N = trees.NEEDLE
PROMPT = 30.0  # seconds: only a hang gets near it


def grep(tools: Any, **arguments: Any) -> Any:
    return tools.call("grep", _timeout=PROMPT, **arguments)


def files(tools: Any, ws: Any, root: str = "", **arguments: Any) -> set[str]:
    result = expect_ok(grep(tools, **arguments), f"grep({arguments})")
    return set(listed_paths(result.text, ws.root / root))


@pytest.fixture
def project(ws: Any) -> Any:
    trees.make_project(ws.root)
    return ws


@clause("GREP-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({}, "pattern"),
        ({"pattern": ""}, "pattern"),
        ({"pattern": 5}, "pattern"),
        ({"pattern": "x", "output_mode": "lines"}, "output_mode"),
        ({"pattern": "x", "offset": -1}, "offset"),
        ({"pattern": "x", "limit": 0}, "limit"),
        ({"pattern": "x", "context": -2, "output_mode": "content"}, "context"),
        ({"pattern": "x", "literal": "yes"}, "literal"),
    ],
    ids=["missing", "empty", "int", "bad-mode", "offset", "limit", "context", "literal-str"],
)
def test_bad_arguments(tools: Any, ws: Any, arguments: dict[str, Any], mention: str) -> None:
    ws.put("a.txt", "x\n")
    expect_error(grep(tools, **arguments), mention)


@clause("GREP-MODE-01")
def test_files_with_matches_default(tools: Any, ws: Any) -> None:
    ws.put("a.txt", f"one {N}\ntwo {N}\n")
    ws.put("sub/deeper/b.md", f"{N}\n")
    ws.put("c.txt", "nothing here\n")
    result = expect_ok(grep(tools, pattern=N))
    shown = listed_paths(result.text, ws.root)
    assert sorted(shown) == ["a.txt", "sub/deeper/b.md"], f"saw {result.text!r}"
    assert "c.txt" not in result.text


@clause("GREP-MODE-01")
def test_paths_relative_to_path_argument(tools: Any, ws: Any) -> None:
    ws.put("pkg/mod/x.py", f"{N}\n")
    result = expect_ok(grep(tools, pattern=N, path="pkg"))
    assert listed_paths(result.text, ws.root / "pkg") == ["mod/x.py"], result.text


@clause("GREP-MODE-02")
@feature("grep.content")
def test_content_mode_line_numbers_and_text(tools: Any, ws: Any) -> None:
    ws.put("f.py", f"first\n  indented {N}(x)\t tab\nthird\nlast {N}")
    result = expect_ok(grep(tools, pattern=N, output_mode="content"))
    assert content_lines(result.text, ws.root) == [
        ("f.py", 2, f"  indented {N}(x)\t tab", True),
        ("f.py", 4, f"last {N}", True),
    ], result.text


@clause("GREP-MODE-02")
@feature("grep.content")
def test_content_mode_unicode_and_crlf(tools: Any, ws: Any) -> None:
    ws.put("u.txt", f"café {N} 中文 😀\r\nplain\r\n".encode())
    found = content_lines(expect_ok(grep(tools, pattern=N, output_mode="content")).text, ws.root)
    assert [(p, n, t.rstrip("\r")) for p, n, t, _ in found] == [("u.txt", 1, f"café {N} 中文 😀")]


@clause("GREP-MODE-03")
@feature("grep.count")
def test_count_mode(tools: Any, ws: Any) -> None:
    ws.put("a.txt", f"{N} {N}\n{N}\nnone\n")
    ws.put("b/c.txt", f"x {N}\n")
    ws.put("d.txt", "none\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="count"))
    assert count_lines(result.text, ws.root) == {"a.txt": 3, "b/c.txt": 1}, result.text


@clause("GREP-CTX-01")
@feature("grep.content", "grep.context")
def test_context_lines(tools: Any, ws: Any) -> None:
    ws.put("f.txt", f"l1\nl2\n{N} 3\nl4\nl5\nl6\nl7\n{N} 8\nl9\n")
    result = expect_ok(grep(tools, pattern=N, output_mode="content", context=1))
    found = content_lines(result.text, ws.root)
    assert [(n, m) for _, n, _, m in found] == [
        (2, False),
        (3, True),
        (4, False),
        (7, False),
        (8, True),
        (9, False),
    ], result.text
    assert "\n--\n" in result.text, "groups that are not adjacent are separated by --"


@clause("GREP-LIT-01")
@feature("grep.literal", "grep.content")
@pytest.mark.parametrize("needle", ["foo(bar[0])", "a.b*c", "$x\\d+", "^start", "[x"])
def test_literal_metacharacters(tools: Any, ws: Any, needle: str) -> None:
    ws.put("f.txt", f"keep {needle} here\naXb\nfoo(bar\nstart {needle}\n")
    result = expect_ok(grep(tools, pattern=needle, literal=True, output_mode="content"))
    numbers = [n for _, n, _, _ in content_lines(result.text, ws.root)]
    assert numbers == [1, 4], f"literal {needle!r}: expected lines 1 and 4, saw {result.text!r}"


@clause("GREP-CASE-01")
def test_ignore_case(tools: Any, ws: Any) -> None:
    ws.put("upper.txt", "NEEDLE\n")
    ws.put("mixed.txt", "NeEdLe\n")
    ws.put("lower.txt", "needle\n")
    assert files(tools, ws, pattern="needle") == {"lower.txt"}
    assert files(tools, ws, pattern="needle", ignore_case=True) == {
        "upper.txt",
        "mixed.txt",
        "lower.txt",
    }


@clause("GREP-FLAG-01")
@pytest.mark.parametrize("pattern", ["--help", "--pre=cat", "-e", "--files", "-v", "--version"])
def test_flag_like_pattern_is_text(tools: Any, ws: Any, pattern: str) -> None:
    ws.put("has.txt", f"the option {pattern} appears\n")
    ws.put("plain.txt", "nothing\n")
    result = expect_ok(grep(tools, pattern=pattern, literal=True))
    assert listed_paths(result.text, ws.root) == ["has.txt"], f"saw {result.text!r}"
    lowered = result.text.lower()
    assert "usage" not in lowered and "ripgrep" not in lowered, "the search program's own output"


@clause("GREP-FLAG-01")
def test_flag_like_regex_pattern(tools: Any, ws: Any) -> None:
    ws.put("has.txt", "--pre=cat\n")
    ws.put("other.txt", "pre cat\n")
    result = expect_ok(grep(tools, pattern="--pre=cat"))
    assert listed_paths(result.text, ws.root) == ["has.txt"], f"saw {result.text!r}"


@clause("GREP-REGEX-01")
@pytest.mark.parametrize("pattern", ["foo(", "[unclosed", "a{2,1}", "(?<"])
def test_invalid_regex_suggests_literal(tools: Any, ws: Any, pattern: str) -> None:
    ws.put("a.txt", "foo(\n")
    expect_error(grep(tools, pattern=pattern), "literal")


@clause("GREP-HIDDEN-01")
def test_hidden_files_searched(project: Any, tools: Any) -> None:
    found = files(tools, project, pattern=N)
    assert {".eslintrc", ".github/workflows/ci.yml"} <= found, f"saw {sorted(found)}"


@clause("GREP-IGN-01")
@feature("grep.gitignore")
def test_gitignore_outside_a_repository(project: Any, tools: Any) -> None:
    assert not (project.root / ".git" / "HEAD").exists()
    found = files(tools, project, pattern=N)
    assert "src/app.py" in found
    ignored = {"generated/out.py", "debug.log", "src/local_only.py"}
    assert not ignored & found, f"gitignored files were searched: {sorted(ignored & found)}"


@clause("GREP-IGN-01")
@feature("grep.gitignore")
def test_gitignore_inside_a_repository(tools: Any, ws: Any) -> None:
    ws.put(".git/HEAD", "ref: refs/heads/main\n")
    ws.put(".gitignore", "secret_out/\n")
    ws.put("secret_out/x.txt", f"{N}\n")
    ws.put("kept.txt", f"{N}\n")
    assert files(tools, ws, pattern=N) == {"kept.txt"}


@clause("GREP-IGN-01")
@feature("grep.gitignore")
def test_glob_does_not_bring_back_ignored(project: Any, tools: Any) -> None:
    found = files(tools, project, pattern=N, glob="*.py")
    assert "src/app.py" in found
    assert "generated/out.py" not in found and "src/local_only.py" not in found, sorted(found)


@clause("GREP-EXCL-01")
@feature("grep.default_excludes")
def test_default_excluded_directories(project: Any, tools: Any) -> None:
    found = files(tools, project, pattern=N)
    for skipped in ("node_modules/", ".venv/", "dist/", "build/", "src/__pycache__/"):
        assert not [f for f in found if f.startswith(skipped)], f"{skipped} was searched"


@clause("GREP-EXCL-01")
@feature("grep.default_excludes")
def test_root_inside_excluded_directory(project: Any, tools: Any) -> None:
    assert files(tools, project, "node_modules/pkg", pattern=N, path="node_modules/pkg") == {
        "index.js"
    }


@clause("GREP-SENS-01")
@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
def test_secrets_never_searched(tools: Any, ws: Any, mode: str) -> None:
    trees.make_project(ws.root)
    result = expect_ok(grep(tools, pattern=N, output_mode=mode))
    for secret in trees.SECRETS:
        assert secret not in result.text, f"{secret} leaked in {mode} mode: {result.text!r}"
    assert "src/app.py" in result.text


@clause("GREP-SENS-02")
@pytest.mark.parametrize(
    "glob",
    ["**/.env", ".env*", "*.pem", "*.KEY", ".ssh/*", "**/.ssh/**", ".git/**", "**/id_*", "*"],
)
def test_user_glob_cannot_reinclude_secrets(tools: Any, ws: Any, glob: str) -> None:
    trees.make_project(ws.root)
    result = expect_ok(grep(tools, pattern=N, glob=glob))
    leaked = [p for p in shown_paths(result.text, ws.root) if is_sensitive(p)]
    assert not leaked, f"glob {glob!r} re-included secrets: {leaked}"


@clause("GREP-SENS-03")
@pytest.mark.parametrize("root", [".ssh", ".git/hooks", ".env", "home/.ssh", ".aws"])
def test_sensitive_root_yields_nothing(tools: Any, ws: Any, root: str) -> None:
    trees.make_project(ws.root)
    result = expect_ok(grep(tools, pattern=N, path=root, output_mode="content"))
    base = ws.root / root if (ws.root / root).is_dir() else (ws.root / root).parent
    assert not content_lines(result.text, base), f"saw {result.text!r}"
    for secret in trees.SECRETS.values():
        for line in secret.splitlines():
            assert line not in result.text, f"{line!r} leaked: {result.text!r}"


@clause("GREP-GLOB-01")
def test_glob_argument(project: Any, tools: Any) -> None:
    assert files(tools, project, pattern=N, glob="*.py") == {"src/app.py"}
    assert files(tools, project, pattern=N, glob="*.{ts,tsx}") == {
        "src/web/index.ts",
        "src/web/view.tsx",
    }
    assert files(tools, project, pattern=N, glob="src/*.py") == {"src/app.py"}
    assert files(tools, project, pattern=N, glob="src/*.ts") == set(), "* never crosses /"
    without_md = files(tools, project, pattern=N, glob="!*.md")
    assert "README.md" not in without_md and "src/app.py" in without_md


@clause("GREP-GLOB-01")
def test_glob_list_and_file_path(project: Any, tools: Any) -> None:
    assert files(tools, project, pattern=N, glob=["*.txt", "*.yml"]) == {
        "docs/guide.txt",
        ".github/workflows/ci.yml",
    }
    result = expect_ok(grep(tools, pattern=N, path="src/app.py", glob="*.md"))
    assert "app.py" in result.text, "a file named by path is searched whatever the glob"


@clause("GREP-SIZE-01")
def test_big_files_skipped(tools: Any, ws: Any) -> None:
    cap = tools.limit("grep.max_filesize")
    size = cap + 1
    if tools.configure(**{"grep.max_filesize": 4096}):
        size = 5000
    ws.put("big.txt", f"{N}\n" + "x" * size)
    ws.put("small.txt", f"{N}\n")
    assert files(tools, ws, pattern=N) == {"small.txt"}


@clause("GREP-NONE-01")
def test_no_match_is_success(tools: Any, ws: Any) -> None:
    ws.put("a.txt", "hay\n")
    result = expect_ok(grep(tools, pattern="needle_absent"))
    assert "no" in result.text.lower(), f"say that nothing was found, saw {result.text!r}"
    assert not listed_paths(result.text, ws.root)


@clause("GREP-PATH-01")
def test_missing_path(tools: Any, ws: Any) -> None:
    expect_error(grep(tools, pattern=N, path="no/such/dir"), "no/such/dir")


@clause("GREP-PATH-01")
def test_file_path_searches_that_file(tools: Any, ws: Any) -> None:
    ws.put("one.txt", f"{N}\n")
    ws.put("two.txt", f"{N}\n")
    result = expect_ok(grep(tools, pattern=N, path="one.txt", output_mode="content"))
    assert "one.txt" in result.text and "two.txt" not in result.text, result.text


@clause("GREP-PATH-01")
def test_symlink_loop_root(tools: Any, ws: Any) -> None:
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    expect_error(grep(tools, pattern=N, path="loop_a"), "loop_a")


@clause("GREP-PATH-02")
def test_links_inside_tree(tools: Any, ws: Any) -> None:
    ws.put("real/a.txt", f"{N}\n")
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    os.symlink(".", ws.file("real/self"))
    os.symlink("/nonexistent/target", ws.file("dangling"))
    assert files(tools, ws, pattern=N) == {"real/a.txt"}


@clause("GREP-PATH-02")
def test_unreadable_directory_skipped(tools: Any, ws: Any) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every directory, so none is unreadable")
    ws.put("open/a.txt", f"{N}\n")
    ws.put("closed/b.txt", f"{N}\n")
    os.chmod(ws.file("closed"), 0)
    try:
        assert files(tools, ws, pattern=N) == {"open/a.txt"}
        expect_error(grep(tools, pattern=N, path="closed"), "closed")
    finally:
        os.chmod(ws.file("closed"), 0o755)


@clause("GREP-PATH-03")
def test_non_utf8_file_name(tools: Any, ws: Any) -> None:
    try:
        with open(os.path.join(os.fsencode(ws.root), b"caf\xe9.txt"), "wb") as handle:
            handle.write(f"{N}\n".encode())
    except OSError as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    ws.put("plain.txt", f"{N}\n")
    result = expect_ok(grep(tools, pattern=N))
    assert "caf\ufffd.txt" in result.text, f"expected caf\\ufffd.txt, saw {result.text!r}"
    assert "plain.txt" in result.text


@clause("GREP-TIME-01")
def test_timeout(tools: Any, ws: Any) -> None:
    if not tools.configure(**{"grep.timeout_s": 0.001}):
        pytest.skip("grep.timeout_s is not configurable, and waiting out the default is slow")
    trees.make_many_files(ws.root, 300)
    expect_error(grep(tools, pattern="n.*e.*e.*d.*l.*e", output_mode="content"), "timed out")
