"""glob: pattern semantics, order, ignore rules, include_ignored, secrets, paging and paths."""

from __future__ import annotations

import os
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools.assertions import continuation_offset, expect_error, expect_ok
from pytest_agenttools.fixtures import trees
from pytest_agenttools.markers import clause, feature

from .search_strategies import (
    body_lines,
    is_sensitive,
    listed_paths,
    page_through,
    search_trees,
    shown_paths,
    user_globs,
)

PROMPT = 30.0


def glob(tools: Any, **arguments: Any) -> Any:
    return tools.call("glob", _timeout=PROMPT, **arguments)


def listing(tools: Any, ws: Any, root: str = "", **arguments: Any) -> list[str]:
    result = expect_ok(glob(tools, **arguments), f"glob({arguments})")
    return listed_paths(result.text, ws.root / root)


LAYOUT = {
    "top.py": "",
    "src/a.py": "",
    "src/b.txt": "",
    "src/deep/c.py": "",
    "src/deep/er/d.py": "",
    "lib/e.ts": "",
    "lib/f.tsx": "",
    "lib/g.js": "",
    "file1.txt": "",
    "file2.txt": "",
    "file3.txt": "",
    ".bashrc": "",
    ".config/tool.toml": "",
}


@pytest.fixture
def layout(ws: Any) -> Any:
    trees.build(ws.root, LAYOUT)
    return ws


@clause("GLOB-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({}, "pattern"),
        ({"pattern": ""}, "pattern"),
        ({"pattern": 3}, "pattern"),
        ({"pattern": "*", "sort": "size"}, "sort"),
        ({"pattern": "*", "offset": -1}, "offset"),
        ({"pattern": "*", "limit": 0}, "limit"),
        ({"pattern": "*", "include_ignored": "yes"}, "include_ignored"),
    ],
    ids=["missing", "empty", "int", "bad-sort", "offset", "limit", "include-str"],
)
def test_bad_arguments(tools: Any, ws: Any, arguments: dict[str, Any], mention: str) -> None:
    ws.put("a.txt", "")
    expect_error(glob(tools, **arguments), mention)


@clause("GLOB-PAT-01")
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["src/a.py", "src/deep/c.py", "src/deep/er/d.py", "top.py"]),
        ("src/*.py", ["src/a.py"]),
        ("src/**/*.py", ["src/a.py", "src/deep/c.py", "src/deep/er/d.py"]),
        ("./*.py", ["top.py"]),
        ("**/*.py", ["src/a.py", "src/deep/c.py", "src/deep/er/d.py", "top.py"]),
        ("src/deep/**", ["src/deep/c.py", "src/deep/er/d.py"]),
        ("src/deep/", ["src/deep/c.py", "src/deep/er/d.py"]),
    ],
)
def test_pattern_with_and_without_slash(
    layout: Any, tools: Any, pattern: str, expected: list[str]
) -> None:
    assert sorted(listing(tools, layout, pattern=pattern)) == expected


@clause("GLOB-PAT-02")
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.{ts,tsx}", ["lib/e.ts", "lib/f.tsx"]),
        ("file[12].txt", ["file1.txt", "file2.txt"]),
        ("file[!12].txt", ["file3.txt"]),
        (".*", [".bashrc"]),
        ("**/*.toml", [".config/tool.toml"]),
    ],
)
def test_braces_classes_dotfiles(
    layout: Any, tools: Any, pattern: str, expected: list[str]
) -> None:
    assert sorted(listing(tools, layout, pattern=pattern)) == expected


@clause("GLOB-PAT-02")
def test_star_lists_dotfiles(layout: Any, tools: Any) -> None:
    shown = listing(tools, layout, pattern="*")
    assert ".bashrc" in shown and ".config/tool.toml" in shown, shown
    assert sorted(shown) == sorted(LAYOUT)


@clause("GLOB-FILES-01")
def test_files_only_links_not_followed(tools: Any, ws: Any) -> None:
    ws.put("d/a.txt", "")
    (ws.root / "empty_dir").mkdir()
    os.symlink("d", ws.file("link_dir"))
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    result = expect_ok(glob(tools, pattern="**"))
    assert body_lines(result.text) == ["d/a.txt"], f"saw {result.text!r}"


@clause("GLOB-SORT-01")
def test_sorted_by_path(tools: Any, ws: Any) -> None:
    names = ["b.txt", "a/z.txt", "a.txt", "B.txt", "é.txt", "a/b/c.txt"]
    trees.build(ws.root, dict.fromkeys(names, ""))
    trees.set_mtimes(ws.root, names)
    assert listing(tools, ws, pattern="**") == sorted(names)


@clause("GLOB-SORT-02")
@feature("glob.sort_modified")
def test_sort_modified_newest_first(tools: Any, ws: Any) -> None:
    names = ["old.txt", "sub/mid.txt", "new.txt", "tie_b.txt", "tie_a.txt"]
    trees.build(ws.root, dict.fromkeys(names, ""))
    trees.set_mtimes(ws.root, names[:3])
    stamp = 1_700_000_000_000_000_000
    for name in ("tie_b.txt", "tie_a.txt"):
        os.utime(ws.file(name), ns=(stamp, stamp))
    assert listing(tools, ws, pattern="**", sort="modified") == [
        "tie_a.txt",
        "tie_b.txt",
        "new.txt",
        "sub/mid.txt",
        "old.txt",
    ]


@clause("GLOB-IGN-01")
def test_ignored_and_excluded_not_listed(tools: Any, ws: Any) -> None:
    trees.make_project(ws.root, secrets=False)
    shown = set(listing(tools, ws, pattern="**/*.py"))
    assert "src/app.py" in shown
    hidden = {"generated/out.py", "src/local_only.py", ".venv/lib/site.py"}
    assert not hidden & shown, f"listed: {sorted(hidden & shown)}"
    assert listing(tools, ws, pattern="node_modules/**") == []
    assert listing(tools, ws, pattern="*.log") == []


@clause("GLOB-IGN-01")
def test_root_inside_excluded_directory(tools: Any, ws: Any) -> None:
    trees.make_project(ws.root, secrets=False)
    assert sorted(listing(tools, ws, "node_modules", pattern="**", path="node_modules")) == [
        "pkg/index.js",
        "pkg/package.json",
    ]


@clause("GLOB-IGN-02")
@feature("glob.include_ignored")
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"pattern": "node_modules/pkg/*.js"}, ["node_modules/pkg/index.js"]),
        ({"pattern": "**/package.json"}, ["node_modules/pkg/package.json"]),
        ({"pattern": "*.py", "path": "generated"}, ["out.py"]),
        ({"pattern": "generated/*.py"}, ["generated/out.py"]),
    ],
    ids=["dir-prefix", "exact-name", "narrow-path", "ignored-dir-prefix"],
)  # fmt: skip
def test_include_ignored_narrow(
    tools: Any, ws: Any, arguments: dict[str, Any], expected: list[str]
) -> None:
    trees.make_project(ws.root, secrets=False)
    root = arguments.get("path", "")
    assert sorted(listing(tools, ws, root, include_ignored=True, **arguments)) == expected


@clause("GLOB-IGN-02")
@feature("glob.include_ignored")
@pytest.mark.parametrize("pattern", ["**/*", "*", "*.js", "**"])
def test_include_ignored_broad_is_error(tools: Any, ws: Any, pattern: str) -> None:
    trees.make_project(ws.root, secrets=False)
    expect_error(glob(tools, pattern=pattern, include_ignored=True), "include_ignored")


@clause("GLOB-SENS-01")
@pytest.mark.parametrize(
    "pattern", ["**", ".env", "**/.env*", "**/*.pem", "*.KEY", ".ssh/*", "**/id_*", ".git/**"]
)
@pytest.mark.parametrize("include_ignored", [False, True])
def test_secrets_never_listed(tools: Any, ws: Any, pattern: str, include_ignored: bool) -> None:
    trees.make_project(ws.root)
    result = glob(tools, pattern=pattern, include_ignored=include_ignored)
    if result.is_error:  # include_ignored refused for a broad pattern: nothing listed either
        return
    leaked = [p for p in shown_paths(result.text, ws.root) if is_sensitive(p)]
    assert not leaked, f"{pattern!r} listed secrets: {leaked}"


@clause("GLOB-SENS-01")
@given(tree=search_trees(), pattern=user_globs.filter(lambda g: not g.startswith("!")))
def test_no_pattern_ever_lists_a_secret(
    tools: Any, ws: Any, tree: dict[str, str], pattern: str
) -> None:
    where = ws.subdir()
    trees.build(where.root, tree)
    for include_ignored in (False, True):
        result = glob(tools, pattern=pattern, path=str(where.root), include_ignored=include_ignored)
        leaked = [p for p in shown_paths(result.text, where.root) if is_sensitive(p)]
        assert not leaked, f"{pattern!r} (include_ignored={include_ignored}) listed {leaked}"


@clause("GLOB-SENS-02")
@pytest.mark.parametrize("root", [".ssh", ".git", ".aws", "home/.ssh", ".git/hooks"])
def test_sensitive_root_lists_nothing(tools: Any, ws: Any, root: str) -> None:
    trees.make_project(ws.root)
    result = expect_ok(glob(tools, pattern="**", path=root))
    assert listed_paths(result.text, ws.root / root) == [], f"saw {result.text!r}"


@clause("GLOB-BULK-01")
@feature("glob.skip_bulky")
def test_broad_patterns_skip_bulky(tools: Any, ws: Any) -> None:
    bulky = ["img/logo.png", "media/clip.MP4", "dist.zip", "lib/native.so", "model.safetensors"]
    trees.build(ws.root, dict.fromkeys([*bulky, "src/main.py", "notes.txt"], "x"))
    for pattern in ("*", "**/*", "*.*", "**"):
        assert sorted(listing(tools, ws, pattern=pattern)) == ["notes.txt", "src/main.py"], pattern
    assert listing(tools, ws, pattern="*.png") == ["img/logo.png"]
    assert listing(tools, ws, pattern="**/*.safetensors") == ["model.safetensors"]


@clause("GLOB-CAP-01")
def test_cap_and_continuation(tools: Any, ws: Any) -> None:
    cap = tools.limit("glob.max_results")
    trees.make_many_files(ws.root, cap + 20)
    result = expect_ok(glob(tools, pattern="**/*.txt"))
    shown = listed_paths(result.text, ws.root)
    assert len(shown) == cap, f"expected {cap} files (glob.max_results), saw {len(shown)}"
    assert continuation_offset(result) == cap and f"offset={cap}" in result.text
    assert len(listing(tools, ws, pattern="**/*.txt", limit=cap + 50)) == cap


@clause("GLOB-PAGE-01")
def test_paging_thousands(tools: Any, ws: Any) -> None:
    made = trees.make_many_files(ws.root, 3000, content="")
    tools.configure(**{"glob.max_results": 700})
    seen = page_through(tools, "glob", pattern="**/*.txt")
    assert seen == sorted(made), "every file once, in path order"


@clause("GLOB-PAGE-01")
@given(count=st.integers(1, 20), page=st.integers(3, 7), modified=st.booleans())
def test_paging_exactly_once(tools: Any, ws: Any, count: int, page: int, modified: bool) -> None:
    where = ws.subdir()
    made = trees.make_many_files(where.root, count, per_dir=4, content="")
    trees.set_mtimes(where.root, made)
    sort = "modified" if modified else "name"
    seen = page_through(tools, "glob", pattern="**", path=str(where.root), limit=page, sort=sort)
    assert seen == (list(reversed(made)) if modified else sorted(made))


@clause("GLOB-PATH-01")
def test_missing_file_and_loop_paths(tools: Any, ws: Any) -> None:
    ws.put("a.txt", "")
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    expect_error(glob(tools, pattern="*", path="nope"), "nope")
    expect_error(glob(tools, pattern="*", path="a.txt"), "a.txt")
    expect_error(glob(tools, pattern="*", path="loop_a"), "loop_a")


@clause("GLOB-NAME-01")
def test_nfd_and_non_utf8_names(tools: Any, ws: Any) -> None:
    nfd = unicodedata.normalize("NFD", "café.txt")
    ws.put(nfd, "")
    ws.put("plain.txt", "")
    try:
        with open(os.path.join(os.fsencode(ws.root), b"bad\xff.txt"), "wb"):
            pass
    except OSError as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    result = expect_ok(glob(tools, pattern="*.txt"))
    lines = body_lines(result.text)
    assert nfd in lines, f"the NFD name must be listed as stored, saw {lines!r}"
    assert "bad\ufffd.txt" in lines and "plain.txt" in lines, lines


@clause("GLOB-NONE-01")
def test_no_match_is_success(tools: Any, ws: Any) -> None:
    ws.put("a.txt", "")
    result = expect_ok(glob(tools, pattern="*.nothing"))
    assert "no" in result.text.lower() and not listed_paths(result.text, ws.root), result.text
