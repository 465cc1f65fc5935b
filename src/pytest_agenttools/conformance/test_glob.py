"""glob: arguments, pattern semantics (shared and per declared dialect), order, paths, names.

Every verdict reads ``details.observation``; the text is judged only in test_glob_text.py.
"""

from __future__ import annotations

import os
import unicodedata
from typing import Any

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import glob_paths, search
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import expect_error, expect_ok, glob_obs
from pytest_agenttools.harness.markers import clause, feature


def glob(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "glob", **arguments)


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
    "fileA.txt": "",
    ".bashrc": "",
    ".config/tool.toml": "",
}


@pytest.fixture
def layout(ws: Workspace) -> Workspace:
    trees.build(ws.root, LAYOUT)
    return ws


CORE_BAD: list[dict[str, Any]] = [
    {},
    {"pattern": ""},
    {"pattern": 3},
    {"pattern": "*", "offset": -1},
    {"pattern": "*", "limit": 0},
    {"pattern": "*", "offset": "2"},
    {"pattern": ["*"]},
]


@clause("GLOB-ARG-01")
@pytest.mark.parametrize(
    "arguments", CORE_BAD, ids=["missing", "empty", "int", "offset", "limit", "offset-str", "list"]
)
def test_bad_arguments(tools: ToolClient, ws: Workspace, arguments: dict[str, Any]) -> None:
    ws.put("a.txt", "")
    expect_error(glob(tools, **arguments), what=f"glob({arguments})")


@clause("GLOB-ARG-01")
@feature("glob.sort_modified")
@pytest.mark.parametrize("sort", ["size", 1, "MODIFIED"])
def test_bad_sort(tools: ToolClient, ws: Workspace, sort: Any) -> None:
    ws.put("a.txt", "")
    expect_error(glob(tools, pattern="*", sort=sort), what=f"sort={sort!r}")


@clause("GLOB-ARG-01")
@feature("glob.include_ignored")
def test_bad_include_ignored(tools: ToolClient, ws: Workspace) -> None:
    ws.put("a.txt", "")
    expect_error(glob(tools, pattern="*.txt", include_ignored="yes"), what="include_ignored='yes'")


#: what every dialect reads the same way (GLOB-PAT-03), on LAYOUT
SHARED = [
    ("**/*.py", ["src/a.py", "src/deep/c.py", "src/deep/er/d.py", "top.py"]),
    ("src/*.py", ["src/a.py"]),
    ("src/**/*.py", ["src/a.py", "src/deep/c.py", "src/deep/er/d.py"]),
    ("src/deep/**", ["src/deep/c.py", "src/deep/er/d.py"]),
    ("src/deep/er/*", ["src/deep/er/d.py"]),
    ("./*.py", ["top.py"]),
    ("lib/*.{ts,tsx}", ["lib/e.ts", "lib/f.tsx"]),
    ("file[12].txt", ["file1.txt", "file2.txt"]),
    ("file[!12].txt", ["file3.txt", "fileA.txt"]),
    ("file?.txt", ["file1.txt", "file2.txt", "file3.txt", "fileA.txt"]),
    ("**/*.{js,ts}", ["lib/e.ts", "lib/g.js"]),
    ("**/deep/*.py", ["src/deep/c.py"]),
    ("src/*", ["src/a.py", "src/b.txt"]),
]


@clause("GLOB-PAT-03")
@pytest.mark.parametrize(("pattern", "expected"), SHARED, ids=[p for p, _ in SHARED])
def test_shared_pattern_semantics(
    layout: Workspace, tools: ToolClient, pattern: str, expected: list[str]
) -> None:
    assert sorted(glob_paths(tools, layout, pattern=pattern)) == expected


#: names that differ only in letter case, and what each pattern lists among them
CASES = [("notes.md", ["notes.md"]), ("*.MD", ["Notes.MD"]), ("NOTES.*", ["NOTES.md"])]


@clause("GLOB-PAT-03")
@pytest.mark.parametrize(("pattern", "expected"), CASES, ids=[p for p, _ in CASES])
def test_letter_case_is_significant(
    tools: ToolClient, ws: Workspace, pattern: str, expected: list[str]
) -> None:
    trees.build(ws.root, {"notes.md": "", "NOTES.md": "", "Notes.MD": ""})
    found = sorted(glob_paths(tools, ws, pattern=pattern))
    assert found == expected, (
        f"{pattern!r} among notes.md, NOTES.md and Notes.MD listed {found}, not {expected}: "
        "letter case is significant in a glob"
    )


ALL_PY = ["src/a.py", "src/deep/c.py", "src/deep/er/d.py", "top.py"]
TOP_TXT = ["file1.txt", "file2.txt", "file3.txt", "fileA.txt"]
NO_DOTS = sorted(k for k in LAYOUT if not k.startswith("."))
#: pattern -> what each dialect lists on LAYOUT; a tuple holds the answers a dialect allows
#: (minimatch leaves dotfiles to the tool's ``dot`` option)
DIALECTS: dict[str, dict[str, list[str] | tuple[list[str], ...]]] = {
    "*.py": {"gitignore": ALL_PY, "bash": ["top.py"], "minimatch": ["top.py"]},
    "*.{ts,tsx}": {"gitignore": ["lib/e.ts", "lib/f.tsx"], "bash": [], "minimatch": []},
    "*.txt": {"gitignore": [*TOP_TXT, "src/b.txt"], "bash": TOP_TXT, "minimatch": TOP_TXT},
    "src/deep/": {
        "gitignore": ["src/deep/c.py", "src/deep/er/d.py"],
        "bash": [],
        "minimatch": ([], ["src/deep/c.py", "src/deep/er/d.py"]),
    },
    ".*": {"gitignore": [".bashrc"], "bash": [".bashrc"], "minimatch": [".bashrc"]},
    "*": {
        "gitignore": sorted(LAYOUT),
        "bash": [*TOP_TXT, "top.py"],
        "minimatch": ([*TOP_TXT, "top.py"], [".bashrc", *TOP_TXT, "top.py"]),
    },
    "**/*.toml": {
        "gitignore": [".config/tool.toml"],
        "bash": [],
        "minimatch": ([], [".config/tool.toml"]),
    },
    "**": {"gitignore": sorted(LAYOUT), "bash": NO_DOTS, "minimatch": (NO_DOTS, sorted(LAYOUT))},
}


@clause("GLOB-PAT-04")
@pytest.mark.parametrize("pattern", sorted(DIALECTS))
def test_declared_dialect(
    layout: Workspace, tools: ToolClient, manifest: Manifest, pattern: str
) -> None:
    dialect = manifest.glob_dialect
    wanted = DIALECTS[pattern][dialect]
    allowed = wanted if isinstance(wanted, tuple) else (wanted,)
    listed = sorted(glob_paths(tools, layout, pattern=pattern))
    assert listed in [sorted(a) for a in allowed], (
        f"{pattern!r} in the {dialect} dialect (manifest dialect.glob) lists "
        f"{' or '.join(map(str, allowed))}"
    )


@clause("GLOB-FILES-01")
def test_files_only_links_not_followed(tools: ToolClient, ws: Workspace) -> None:
    ws.put("d/a.txt", "")
    (ws.root / "empty_dir").mkdir()
    (ws.root / "d" / "sub.txt").mkdir()  # a directory whose name looks like a file
    os.symlink("d", ws.file("link_dir"))
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    assert glob_paths(tools, ws, pattern="**") == ["d/a.txt"]
    assert glob_paths(tools, ws, pattern="**/*.txt") == ["d/a.txt"]


@clause("GLOB-SORT-01")
def test_sorted_by_path(tools: ToolClient, ws: Workspace) -> None:
    names = ["b.txt", "a/z.txt", "a.txt", "B.txt", "é.txt", "a/b/c.txt", "a-b.txt", "a_b.txt"]
    trees.build(ws.root, dict.fromkeys(names, ""))
    trees.set_mtimes(ws.root, names)
    assert glob_paths(tools, ws, pattern="**") == sorted(names)


@clause("GLOB-SORT-02")
@feature("glob.sort_modified")
def test_sort_modified_newest_first(tools: ToolClient, ws: Workspace) -> None:
    names = ["old.txt", "sub/mid.txt", "new.txt", "tie_b.txt", "tie_a.txt"]
    trees.build(ws.root, dict.fromkeys(names, ""))
    trees.set_mtimes(ws.root, names[:3])
    stamp = 1_700_000_000_000_000_000
    for name in ("tie_b.txt", "tie_a.txt"):
        os.utime(ws.file(name), ns=(stamp, stamp))
    assert glob_paths(tools, ws, pattern="**", sort="modified") == [
        "tie_a.txt",
        "tie_b.txt",
        "new.txt",
        "sub/mid.txt",
        "old.txt",
    ]
    assert glob_paths(tools, ws, pattern="**", sort="name") == sorted(names)


@clause("GLOB-PATH-01")
@pytest.mark.parametrize("path", ["nope", "a.txt", "loop_a", "nope/deeper"])
def test_missing_file_and_loop_paths(tools: ToolClient, ws: Workspace, path: str) -> None:
    ws.put("a.txt", "")
    os.symlink("loop_b", ws.file("loop_a"))
    os.symlink("loop_a", ws.file("loop_b"))
    expect_error(glob(tools, pattern="*", path=path), what=f"path={path!r}")


@clause("GLOB-NAME-01")
def test_nfd_and_non_utf8_names(tools: ToolClient, ws: Workspace) -> None:
    nfd = unicodedata.normalize("NFD", "café.txt")
    ws.put(nfd, "")
    ws.put("plain.txt", "")
    try:
        with open(os.path.join(os.fsencode(ws.root), b"bad\xff.txt"), "wb"):
            pass
    except OSError as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    listed = glob_paths(tools, ws, pattern="*.txt")
    assert nfd in listed, f"the NFD name must be listed as stored, saw {listed!r}"
    assert "bad\ufffd.txt" in listed and "plain.txt" in listed, listed


@clause("GLOB-NONE-01")
@pytest.mark.parametrize("pattern", ["*.nothing", "**/*.nothing", "missing_dir/**"])
def test_no_match_is_success(tools: ToolClient, ws: Workspace, pattern: str) -> None:
    ws.put("a.txt", "")
    ws.put("sub/b.txt", "")
    result = expect_ok(glob(tools, pattern=pattern))
    observed = glob_obs(result)
    assert observed.paths == () and not observed.truncated and observed.next_offset is None
    assert result.text.strip(), "the text must say something (that nothing matched)"
