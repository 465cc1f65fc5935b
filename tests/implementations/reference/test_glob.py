"""The reference glob tool run through real directories: its ports, dialects, roots and caps.

Each test lists a real tree with the real rg and judges what the call answers: the listed paths
(text and ``details.observation``), the error code and text, the details. The texts pinned whole
are the reference's own wording (read and judged clear when pinned); ``{ws}`` stands for the
workspace's absolute path.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.broken.grep_reads_rg_config import Glob as ConfigReadingGlob
from pytest_agenttools.implementations.reference import ReferenceTools, create, glob
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.search_ops import GlobOps
from tests.implementations.reference.test_write import call, text

CAPPED_NOTE = (
    "[rg's output reached its size cap, so this listing is incomplete. Narrow the path or the "
    "pattern.]"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """a.txt, .hidden.txt, img.png, sub/b.txt, sub/deep/c.txt and node_modules/pkg/d.txt."""
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    for name in ("a.txt", ".hidden.txt", "img.png", "sub/b.txt", "sub/deep/c.txt"):
        (tmp_path / name).write_text(f"{name}\n")
    (tmp_path / "node_modules" / "pkg" / "d.txt").write_text("dependency\n")
    return tmp_path


def listed(result: dict[str, Any]) -> list[str]:
    """The observed paths of a successful listing (asserting it succeeded)."""
    assert not result["isError"], result
    paths: list[str] = result["details"]["observation"]["paths"]
    return paths


def with_port(port: GlobOps) -> ReferenceTools:
    return ReferenceTools(ops={"glob": port})


# --- arguments and pattern checks ------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({}, "glob: missing required argument 'pattern' (a string)."),
        (
            {"pattern": "x" * 16_385},
            "glob: pattern is 16,385 characters long; glob patterns are at most 16,384. Send a "
            "shorter pattern.",
        ),
    ],
    ids=["missing", "too-long"],
)
def test_a_refused_pattern_names_glob_and_the_pattern(
    workspace: Path, arguments: dict[str, Any], said: str
) -> None:
    result = call("glob", workspace, **arguments)
    assert result["details"] == {"error": "invalid_argument"}
    assert text(result) == said


@pytest.mark.parametrize(
    ("pattern", "paths"),
    [
        ("./ a.txt", [" a.txt"]),  # the space after ./ is part of the name
        ("./Xa.txt", ["Xa.txt"]),
        ("./a.txt", ["a.txt"]),
        ("./sub/b.txt", ["sub/b.txt"]),
    ],
)
def test_a_dot_slash_pattern_is_anchored_at_the_search_directory(
    workspace: Path, pattern: str, paths: list[str]
) -> None:
    for name in (" a.txt", "Xa.txt", "sub/ a.txt", "sub/Xa.txt", "sub/a.txt"):
        (workspace / name).write_text("x\n")
    assert listed(call("glob", workspace, pattern=pattern)) == paths


# --- include_ignored needs a narrow search ---------------------------------------------------


@pytest.mark.parametrize(
    ("cwd", "path", "pattern"),
    [
        ("sub", "..", "*.txt"),  # the parent of cwd is no narrower than cwd
        ("sub", "../node_modules", "*.txt"),  # a directory outside cwd is judged by the pattern
        (".", None, "./*.txt"),  # ./ anchors the pattern; it names no directory
        (".", None, "././*.txt"),
        (".", None, "."),  # a pattern of no path part at all
    ],
)
def test_include_ignored_without_a_narrow_path_or_pattern_is_too_broad(
    workspace: Path, cwd: str, path: str | None, pattern: str
) -> None:
    arguments: dict[str, Any] = {"pattern": pattern, "include_ignored": True}
    if path is not None:
        arguments["path"] = path
    result = call("glob", workspace / cwd, **arguments)
    assert result["details"] == {"error": "too_broad"}, result


@pytest.mark.parametrize(
    ("path", "pattern", "paths"),
    [
        ("node_modules", "*.txt", ["node_modules/pkg/d.txt"]),
        (None, "node_modules/**", ["node_modules/pkg/d.txt"]),
        (None, "**/d.txt", ["node_modules/pkg/d.txt"]),
    ],
)
def test_include_ignored_with_a_narrow_path_or_pattern_lists_excluded_files(
    workspace: Path, path: str | None, pattern: str, paths: list[str]
) -> None:
    arguments: dict[str, Any] = {"pattern": pattern, "include_ignored": True}
    if path is not None:
        arguments["path"] = path
    assert listed(call("glob", workspace, **arguments)) == paths


# --- roots -----------------------------------------------------------------------------------


def test_paths_are_observed_relative_to_the_calls_cwd(workspace: Path) -> None:
    """The process's own working directory is elsewhere: the call's cwd is what counts."""
    assert not Path.cwd().is_relative_to(workspace)
    result = call("glob", workspace, pattern="*.txt", path="sub")
    assert listed(result) == ["sub/b.txt", "sub/deep/c.txt"]
    assert text(result) == "b.txt\ndeep/c.txt"
    assert result["details"]["observation"] == {
        "paths": ["sub/b.txt", "sub/deep/c.txt"],
        "truncated": False,
        "next_offset": None,
        "total": 2,
    }


def test_a_project_under_a_build_directory_keeps_its_default_exclusions(tmp_path: Path) -> None:
    """Exclusions are judged on the root's part below cwd, not on where the project lives."""
    project = tmp_path / "build" / "project"
    (project / "node_modules").mkdir(parents=True)
    (project / "main.js").write_text("main\n")
    (project / "node_modules" / "dep.js").write_text("dep\n")
    assert listed(call("glob", project, pattern="**/*.js")) == ["main.js"]


def test_a_home_root_is_found_through_the_calls_env(workspace: Path) -> None:
    env = {"HOME": str(workspace / "sub")}
    result = create().call("glob", {"pattern": "*.txt", "path": "~"}, str(workspace), env=env)
    assert listed(result) == ["sub/b.txt", "sub/deep/c.txt"]


def test_a_sensitive_root_observes_an_empty_complete_listing(workspace: Path) -> None:
    (workspace / ".ssh").mkdir()
    (workspace / ".ssh" / "config").write_text("Host x\n")
    result = call("glob", workspace, pattern="*", path=".ssh")
    assert result["details"]["observation"] == {
        "paths": [],
        "truncated": False,
        "next_offset": None,
        "total": 0,
    }
    assert text(result) == (
        f"No files listed: {workspace / '.ssh'} is not searched because '.ssh' may hold secrets "
        "(keys, credentials, version-control data)."
    )


# --- the operations port and the glob dialects ------------------------------------------------


def test_a_bare_call_context_uses_the_default_port(workspace: Path) -> None:
    """A context that installs no port for glob gets the module's own (gitignore) port."""
    tools = create()
    ctx = CallContext(cwd=str(workspace), limits=tools.limits, queue=MutationQueue())
    result = glob.run({"pattern": "*.txt"}, ctx)
    assert listed(result) == [".hidden.txt", "a.txt", "sub/b.txt", "sub/deep/c.txt"]


def test_an_explicit_default_port_reads_gitignore_globs(workspace: Path) -> None:
    """``*.txt`` names files at any depth; dotfiles match; default exclusions hold."""
    result = with_port(GlobOps()).call("glob", {"pattern": "*.txt"}, str(workspace))
    assert listed(result) == [".hidden.txt", "a.txt", "sub/b.txt", "sub/deep/c.txt"]
    explicit = with_port(GlobOps("gitignore")).call("glob", {"pattern": "*.txt"}, str(workspace))
    assert listed(explicit) == listed(result)


@pytest.mark.parametrize("dialect", ["bash", "minimatch"])
def test_an_installed_anchored_dialect_matches_whole_relative_paths(
    workspace: Path, dialect: str
) -> None:
    tools = with_port(GlobOps(dialect))
    assert listed(tools.call("glob", {"pattern": "*.txt"}, str(workspace))) == ["a.txt"]
    assert listed(tools.call("glob", {"pattern": "sub/*.txt"}, str(workspace))) == ["sub/b.txt"]
    assert listed(tools.call("glob", {"pattern": ".*"}, str(workspace))) == [".hidden.txt"]


def test_an_anchored_broad_pattern_skips_dotfiles_dependencies_and_bulky_files(
    workspace: Path,
) -> None:
    tools = with_port(GlobOps("bash"))
    result = tools.call("glob", {"pattern": "**"}, str(workspace))
    assert listed(result) == ["a.txt", "sub/b.txt", "sub/deep/c.txt"]
    assert listed(tools.call("glob", {"pattern": "*.png"}, str(workspace))) == ["img.png"]


def test_an_anchored_dialect_with_dot_matches_dotfiles(workspace: Path) -> None:
    tools = with_port(GlobOps("bash", dot=True))
    assert listed(tools.call("glob", {"pattern": "*"}, str(workspace))) == [".hidden.txt", "a.txt"]
    result = tools.call("glob", {"pattern": "**"}, str(workspace))
    assert listed(result) == [".hidden.txt", "a.txt", "sub/b.txt", "sub/deep/c.txt"]


def test_an_anchored_pattern_that_cannot_be_compiled_is_refused(workspace: Path) -> None:
    pattern = "{a,b}" * 11
    result = with_port(GlobOps("bash")).call("glob", {"pattern": pattern}, str(workspace))
    assert result["details"] == {"error": "invalid_argument"}
    assert text(result) == (
        f"glob: pattern {pattern!r} cannot be used: the braces expand to more than 1024 "
        "alternatives."
    )


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^unknown glob dialect 'fish'$"):
        GlobOps("fish")
    assert [GlobOps(d).dialect for d in ("gitignore", "bash", "minimatch")] == [
        "gitignore",
        "bash",
        "minimatch",
    ]
    assert GlobOps().dialect == "gitignore"
    assert GlobOps().dot is False


def test_rg_gets_the_environment_the_port_derives_from_the_calls_env(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port that hands the call's env to rg (and drops --no-config) makes rg read the call's
    RIPGREP_CONFIG_PATH: the tool runs rg with what the port derived, nothing else."""
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    config = workspace.parent / "rgconfig"
    config.write_text("--glob=!a.txt\n")
    tools = with_port(ConfigReadingGlob())
    env = {"RIPGREP_CONFIG_PATH": str(config)}
    result = tools.call("glob", {"pattern": "*.txt", "path": "."}, str(workspace), env=env)
    assert listed(result) == [".hidden.txt", "sub/b.txt", "sub/deep/c.txt"]
    plain = create().call("glob", {"pattern": "*.txt"}, str(workspace), env=env)
    assert "a.txt" in listed(plain), "the reference's own port never reads the call's config"


# --- how rg ended ----------------------------------------------------------------------------


def test_a_run_past_its_deadline_times_out(workspace: Path) -> None:
    result = create({"glob.timeout_s": 1e-6}).call("glob", {"pattern": "*"}, str(workspace))
    assert result["details"] == {"error": "timeout"}
    assert text(result) == (
        "glob timed out after 1e-06 seconds and rg was stopped. Narrow the search with a smaller "
        "path or a more specific pattern."
    )


def test_an_unreadable_directory_deep_in_the_tree_does_not_hide_the_rest(tmp_path: Path) -> None:
    """rg cannot open a directory whose path is longer than PATH_MAX: it skips it and exits 2;
    what it did list is the answer, and the result says that a path was too deep to enter."""
    (tmp_path / "top.txt").write_text("top\n")
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(20):
            os.mkdir("d" * 250, dir_fd=fd)
            inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("deep.txt", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    finally:
        os.close(fd)
    try:
        result = call("glob", tmp_path, pattern="*.txt")
        assert listed(result) == ["top.txt"]
        assert "path length limit" in text(result) and result["details"]["too_deep"] >= 1
        nothing = call("glob", tmp_path, pattern="*.md")
        assert "No files matched" in text(nothing) and "path length limit" in text(nothing)
        found = call("grep", tmp_path, pattern="nothing-here")
        assert "No matches found" in text(found) and "path length limit" in text(found)
    finally:
        shutil.rmtree(tmp_path / ("d" * 250))


def test_an_rg_failure_is_reported_with_its_message(workspace: Path) -> None:
    """rg failing for a reason other than the pattern cannot be provoked in a tree the test
    (running as root) builds, so a stand-in executable plays rg: exit 2 and a long message."""
    message = "rg: ./data: Input/output error (os error 5) " + "".join(
        f"{i:04d}" for i in range(150)
    )
    stand_in = workspace.parent / "fake-rg"
    stand_in.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 2\n")
    stand_in.chmod(0o755)
    tools = create()
    tools.services["rg"] = str(stand_in)
    result = tools.call("glob", {"pattern": "*.txt"}, str(workspace))
    assert result["details"] == {"error": "rg_failed"}
    assert text(result) == "rg failed: " + message[:500]


# --- the output cap --------------------------------------------------------------------------


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """60 top-level files of equal name length, f00.txt to f59.txt."""
    for index in range(60):
        (tmp_path / f"f{index:02d}.txt").write_text("x\n")
    return tmp_path


def test_a_capped_run_with_no_match_says_it_was_capped(many: Path) -> None:
    result = create({"glob.max_output_bytes": 40}).call("glob", {"pattern": "sub/*.txt"}, str(many))
    assert listed(result) == []
    assert result["details"]["output_capped"] is True
    assert result["details"]["observation"]["truncated"] is True
    assert text(result).startswith("No files matched 'sub/*.txt' in ")


def test_a_capped_page_gives_both_notes(many: Path) -> None:
    """Each record is 8 bytes (``fNN.txt`` and a NUL): a 40-byte cap keeps 5 whole ones."""
    result = create({"glob.max_output_bytes": 40}).call(
        "glob", {"pattern": "*.txt", "limit": 2}, str(many)
    )
    shown = listed(result)
    assert len(shown) == 2
    assert result["details"]["output_capped"] is True
    assert result["details"]["observation"] == {
        "paths": shown,
        "truncated": True,
        "next_offset": 2,
        "total": 5,
    }
    assert text(result) == (
        "\n".join(shown) + "\n\n" + CAPPED_NOTE + "\n[Showing files 1-2 of 5. Use offset=2 to "
        "continue.]"
    )


# --- names the selection cannot hand to rg as they are ----------------------------------------


@pytest.fixture
def colons(tmp_path: Path) -> Path:
    """Names with a colon, one of them rg's own type syntax (``include:txt``), beside files that
    such a glob must not select."""
    (tmp_path / "sub").mkdir()
    for name in ("include:txt", "a.txt", "sub/a:b.txt", "sub/x.txt", "sub/axb.txt"):
        (tmp_path / name).write_text("needle\n")
    return tmp_path


@pytest.mark.parametrize(
    ("pattern", "paths"),
    [
        ("include:txt", ["include:txt"]),
        ("a:b.txt", ["sub/a:b.txt"]),
        ("*:*", ["include:txt", "sub/a:b.txt"]),
        ("sub/*:*", ["sub/a:b.txt"]),
    ],
)
def test_a_colon_in_a_glob_is_part_of_the_name(
    colons: Path, pattern: str, paths: list[str]
) -> None:
    """rg reads a colon in a file-type definition as its own syntax (``include:txt`` would pull
    in every ``*.txt``, ``a:b`` would be refused): glob and grep's ``glob`` select exactly the
    names the pattern gives."""
    tools = create()
    assert sorted(listed(tools.call("glob", {"pattern": pattern}, str(colons)))) == paths
    found = tools.call(
        "grep", {"pattern": "needle", "glob": pattern, "output_mode": "files_with_matches"},
        str(colons),
    )  # fmt: skip
    assert not found["isError"], found
    assert sorted(found["details"]["observation"]["files"]) == paths


@pytest.mark.parametrize("dialect", ["bash", "minimatch"])
def test_an_escaped_brace_names_the_file_itself(tmp_path: Path, dialect: str) -> None:
    for name in ("{a,b}.txt", "a.txt", "b.txt"):
        (tmp_path / name).write_text("x\n")
    tools = with_port(GlobOps(dialect))
    assert listed(tools.call("glob", {"pattern": "\\{a,b}.txt"}, str(tmp_path))) == ["{a,b}.txt"]
    assert sorted(listed(tools.call("glob", {"pattern": "{a,b}.txt"}, str(tmp_path)))) == [
        "a.txt",
        "b.txt",
    ]
