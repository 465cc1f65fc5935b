"""The helpers grep and glob share: input checks, file selection, the search root, paging, and the
operations port (SearchOps) through which both reach the system.

Where a helper's behaviour reaches a caller through a tool, the tool is called on real files;
the input checks that the argument layer already performs for every tool (NUL, lone
surrogates) are second lines of defence for other ports, so those are called directly.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import (
    ReferenceTools,
    ripgrep,
    search_filters,
    search_input,
    search_ops,
    search_paging,
)
from pytest_agenttools.implementations.reference.results import ToolError
from tests.implementations.reference.test_write import call, text

# --- search_input: text arguments -------------------------------------------------------------


def refused(
    value: str, tool: str = "grep", name: str = "pattern", max_chars: int = 10
) -> ToolError:
    with pytest.raises(ToolError) as raised:
        search_input.check_text(value, tool, name, max_chars=max_chars, what="patterns")
    assert raised.value.code == "invalid_argument"
    return raised.value


def test_a_nul_in_a_grep_pattern_is_refused_with_the_way_to_find_nul_bytes() -> None:
    assert refused("a\x00b\x00").message == (
        "grep: pattern contains a NUL character (at index 1), which cannot be passed to the "
        "search. Remove it (to find NUL bytes, write \\x00 in a regular expression)."
    )


@pytest.mark.parametrize(("tool", "name"), [("grep", "glob"), ("glob", "pattern")])
def test_a_nul_elsewhere_is_refused_without_the_regex_hint(tool: str, name: str) -> None:
    assert refused("ab\x00", tool, name).message == (
        f"{tool}: {name} contains a NUL character (at index 2), which cannot be passed to the "
        "search. Remove it."
    )


@pytest.mark.parametrize("surrogate", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_every_lone_surrogate_is_refused(surrogate: str) -> None:
    assert refused(f"ab{surrogate}").message == (
        f"grep: pattern contains an unpaired surrogate (U+{ord(surrogate):04X} at index 2), "
        "which is not a character any file holds. Remove it or send the whole character it was "
        "part of."
    )
    assert search_input.first_surrogate(f"ab{surrogate}") == 2


def test_a_pattern_of_exactly_the_limit_is_accepted() -> None:
    assert search_input.check_text("x" * 10, "grep", "pattern", max_chars=10, what="x") == "x" * 10
    assert refused("x" * 11).message == (
        "grep: pattern is 11 characters long; patterns are at most 10. Send a shorter pattern."
    )


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("rg: error parsing glob '[': unclosed class", "unclosed class"),
        ("rg: some  other\n failure ", "rg: some other failure"),
        ("error parsing glob 'x': " + "y" * 400, "y" * 300),
    ],
    ids=["rg-form", "other-form", "long"],
)
def test_glob_error_reason(message: str, reason: str) -> None:
    assert search_input.glob_error(message) == reason


# --- input checks through the tools -----------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        (
            "grep",
            {"pattern": "x" * (search_input.MAX_PATTERN_CHARS + 1)},
            "grep: pattern is 1,048,577 characters long; patterns are at most 1,048,576. Send a "
            "shorter pattern.",
        ),
        (
            "glob",
            {"pattern": "x" * (search_input.MAX_GLOB_CHARS + 1)},
            "glob: pattern is 16,385 characters long; glob patterns are at most 16,384. Send a "
            "shorter pattern.",
        ),
        (
            "grep",
            {"pattern": "needle", "path": "p" * 70_000},
            "grep: path is 70,000 characters long; paths are at most 65,536. Send a shorter path.",
        ),
    ],
    ids=["grep-pattern", "glob-pattern", "grep-path"],
)
def test_too_long_arguments(
    tmp_path: Path, tool: str, arguments: dict[str, str], said: str
) -> None:
    result = call(tool, tmp_path, None, **arguments)
    assert result["details"] == {"error": "invalid_argument"}
    assert text(result) == said


def test_an_invalid_glob_with_a_slash_is_an_argument_error(tmp_path: Path) -> None:
    """rg never sees it: the check of whole relative paths compiles it first."""
    result = call("glob", tmp_path, pattern="src/[z-a].py")
    assert result["details"] == {"error": "invalid_argument"}
    said = text(result)
    assert said.startswith("A glob pattern is not valid: bad character range z-a"), said
    assert said.endswith(". Check its [...] classes."), said


# --- search_filters: what grep and glob select ------------------------------------------------


@pytest.fixture
def bulky(tmp_path: Path) -> Path:
    """Text files with bulky extensions (archives, images), and a plain one."""
    for name in ("a.txt", "b.png", "Xa.png", "Xb.txt", "notes.zip"):
        (tmp_path / name).write_text("needle\n")
    return tmp_path


def test_grep_searches_bulky_files(bulky: Path) -> None:
    result = call("grep", bulky, pattern="needle")
    assert sorted(result["details"]["observation"]["files"]) == sorted(
        ["a.txt", "b.png", "Xa.png", "Xb.txt", "notes.zip"]
    )


def test_selection_without_bulky_keeps_bulky_files(bulky: Path) -> None:
    argv = [ripgrep.find_rg(), "--files", "--null", *ripgrep.BASE_FLAGS]
    argv += search_filters.glob_arguments([], default_dirs=True)
    found = ripgrep.run(argv, str(bulky), timeout=20, max_bytes=1 << 20)
    assert sorted(found.records(b"\0")) == [b"Xa.png", b"Xb.txt", b"a.txt", b"b.png", b"notes.zip"]


def glob_files(root: Path, pattern: str, tools: ReferenceTools | None = None) -> list[str]:
    result = call("glob", root, tools, pattern=pattern)
    assert not result["isError"], result
    files: list[str] = result["details"]["observation"]["paths"]
    return files


@pytest.mark.parametrize(
    ("dialect", "pattern", "files"),
    [
        ("gitignore", "./*", ["Xb.txt", "a.txt"]),
        ("gitignore", "X*", ["Xa.png", "Xb.txt"]),
        ("gitignore", "./b.png", ["b.png"]),
        ("bash", "./*", ["Xb.txt", "a.txt"]),
        ("bash", "./b.png", ["b.png"]),
        ("bash", "X*", ["Xa.png", "Xb.txt"]),
        ("bash", "*a*", ["Xa.png", "a.txt"]),
    ],
)
def test_glob_skips_bulky_files_for_broad_patterns_only(
    bulky: Path, dialect: str, pattern: str, files: list[str]
) -> None:
    tools = ReferenceTools(ops={"glob": search_ops.GlobOps(dialect)})
    assert glob_files(bulky, pattern, tools) == files


def test_an_exact_name_with_capital_x_is_narrow_enough_for_include_ignored(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("X.txt\n")
    (tmp_path / "X.txt").write_text("x\n")
    result = call("glob", tmp_path, pattern="X.txt", include_ignored=True)
    assert result["details"]["observation"]["paths"] == ["X.txt"], result


def test_an_exclusion_with_a_slash_alone_keeps_every_other_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("needle\n")
    (tmp_path / "a.txt").write_text("needle\n")
    result = call("grep", tmp_path, pattern="needle", glob=["!sub/*.md"])
    assert result["details"]["observation"]["files"] == ["a.txt"]


@pytest.fixture
def under_build(tmp_path: Path) -> Path:
    """build/proj (the working directory) and build/other, each with a node_modules."""
    for project in ("proj", "other"):
        (tmp_path / "build" / project / "node_modules").mkdir(parents=True)
        (tmp_path / "build" / project / "node_modules" / "dep.txt").write_text("needle\n")
        (tmp_path / "build" / project / "own.txt").write_text("needle\n")
    return tmp_path / "build" / "proj"


def test_a_project_under_a_build_directory_keeps_its_exclusions(under_build: Path) -> None:
    result = call("grep", under_build, pattern="needle")
    assert result["details"]["observation"]["files"] == ["own.txt"]
    assert glob_files(under_build, "**/*.txt") == ["own.txt"]


@pytest.mark.parametrize(
    ("path", "files"),
    [
        (
            "..",
            [
                "{b}/other/node_modules/dep.txt",
                "{b}/other/own.txt",
                "node_modules/dep.txt",
                "own.txt",
            ],
        ),
        ("../other", ["{b}/other/node_modules/dep.txt", "{b}/other/own.txt"]),
    ],
    ids=["parent", "sibling"],
)
def test_a_root_outside_the_working_directory_is_judged_on_its_whole_path(
    under_build: Path, path: str, files: list[str]
) -> None:
    """Outside cwd, the root lies in build/: it is searched as a whole, nothing skipped."""
    result = call("grep", under_build, pattern="needle", path=path)
    build = str(under_build.parent)
    found = result["details"]["observation"]["files"]
    assert sorted(found) == sorted(f.format(b=build) for f in files)


# --- search_paging ----------------------------------------------------------------------------


def test_an_offset_equal_to_the_total_is_past_the_end(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    result = call("glob", tmp_path, pattern="*.txt", offset=1)
    assert result["details"] == {"error": "offset_beyond_end", "total": 1}
    assert text(result) == (
        "offset=1 is past the last result: there are 1 result(s), so use an offset from 0 to 0."
    )


def test_newest_first_dates_a_link_by_itself_not_its_target(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("")
    (tmp_path / "middle").write_text("")
    os.symlink("target", tmp_path / "link")
    os.utime(tmp_path / "target", ns=(0, 300 * 10**9))
    os.utime(tmp_path / "middle", ns=(0, 200 * 10**9))
    os.utime(tmp_path / "link", ns=(0, 100 * 10**9), follow_symlinks=False)
    names = [b"link", b"middle", b"target"]
    assert search_paging.newest_first(os.fsencode(tmp_path), names) == [
        b"target",
        b"middle",
        b"link",
    ]


def test_newest_first_dates_a_vanished_file_to_the_epoch(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("")
    os.utime(tmp_path / "a", ns=(0, 0))
    (tmp_path / "c").write_text("")
    names = [b"gone", b"c", b"a"]
    assert search_paging.newest_first(os.fsencode(tmp_path), names) == [b"c", b"a", b"gone"]


def test_observed_path_of_the_parent_directory_is_absolute() -> None:
    assert search_paging.observed_path("/w", ".", "/w/sub") == "/w"
    assert search_paging.observed_path("/w/sub", "..", "/w/sub") == "/w"


# --- SearchOps.run ----------------------------------------------------------------------------


def ops_run(argv: list[str], cwd: Path, **given: Any) -> ripgrep.RgRun:
    options: dict[str, Any] = {"timeout": 20, "max_bytes": 1000, "cancel": None, "env": None}
    options.update(given)
    return search_ops.SearchOps().run(argv, str(cwd), **options)


def test_ops_run_passes_the_environment(tmp_path: Path) -> None:
    assert "AGENTTOOLS_PROBE" not in os.environ
    env = {"AGENTTOOLS_PROBE": "given", "PATH": os.environ["PATH"]}
    found = ops_run(["sh", "-c", 'printf %s "$AGENTTOOLS_PROBE"'], tmp_path, env=env)
    assert found.stdout == b"given"


def test_ops_run_passes_the_cancel_switch(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    found = ops_run(["sleep", "30"], tmp_path, cancel=cancel)
    assert found.cancelled


def test_a_search_that_cannot_start_names_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as raised:
        ops_run([str(tmp_path / "no-such-rg")], tmp_path)
    assert raised.value.code == "engine_failed"
    assert raised.value.message == "The search could not be started: No such file or directory."


def test_a_command_line_over_the_system_limit_is_too_long(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as raised:
        ops_run(["true", "x" * 200_000], tmp_path)
    assert raised.value.code == "too_long"
    assert raised.value.message == (
        "The search arguments are too long for the system to start the search (over its "
        "command-line size limit). Pass fewer or shorter glob patterns."
    )
