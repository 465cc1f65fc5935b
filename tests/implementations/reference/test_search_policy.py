"""The reference grep's and glob's own wording and error codes, which no conformance clause
judges, pinned.

Conformance judges what every correct search shares: an error result for a bad argument, the
path it could not search, no partial listing. The code in ``details.error`` and the exact
sentences (which say what to do next) are this reference's choices; a change to any of them
should be deliberate. These tests say so, and they kill the mutants of that policy in the search
group's mutation run (docs/mutation.md). Each text below was read and judged clear and
actionable when it was pinned; ``{ws}`` stands for the workspace's absolute path.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import create, search_root
from tests.implementations.reference.test_write import call, text

# (id, tool, arguments, code, the whole text)
CASES: list[tuple[str, str, dict[str, Any], str, str]] = [
    (
        "grep-mode",
        "grep",
        {"pattern": "alpha", "output_mode": "lines"},
        "invalid_argument",
        "grep: output_mode must be one of files_with_matches, content, count, got 'lines'.",
    ),
    (
        "grep-context",
        "grep",
        {"pattern": "alpha", "context": -1},
        "invalid_argument",
        "grep: context must be 0 or more, got -1.",
    ),
    (
        "grep-offset",
        "grep",
        {"pattern": "alpha", "offset": -1},
        "invalid_argument",
        "grep: offset must be 0 or more (results are counted from 0), got -1.",
    ),
    (
        "grep-limit",
        "grep",
        {"pattern": "alpha", "limit": 0},
        "invalid_argument",
        "grep: limit must be 1 or more, got 0. Omit it for a page.",
    ),
    (
        "grep-empty",
        "grep",
        {"pattern": ""},
        "invalid_argument",
        "grep: pattern is empty. Pass the text or regex to search for.",
    ),
    (
        "grep-line-break",
        "grep",
        {"pattern": "a\nb"},
        "invalid_argument",
        "grep: pattern contains a line break; grep matches within single lines. Search for one "
        "line of the text (or a part of it) at a time.",
    ),
    (
        "grep-empty-glob",
        "grep",
        {"pattern": "alpha", "glob": ""},
        "invalid_argument",
        "grep: glob must be a non-empty string or a list of them, got ''.",
    ),
    (
        "grep-glob-not-a-string",
        "grep",
        {"pattern": "alpha", "glob": ["*.py", 3]},
        "invalid_argument",
        "grep: glob must hold strings only, got integer 3 in the array.",
    ),
    (
        "grep-too-many-globs",
        "grep",
        {"pattern": "alpha", "glob": ["*.py"] * 300},
        "invalid_argument",
        "grep: glob lists 300 patterns; pass at most 256.",
    ),
    (
        "grep-bad-glob",
        "grep",
        {"pattern": "alpha", "glob": "{a"},
        "invalid_argument",
        "grep: a glob pattern is not valid: unclosed alternate group; missing '}' (maybe escape "
        "'{' with '[{]'?). Check its [...] classes and {...} braces.",
    ),
    (
        "grep-bad-regex",
        "grep",
        {"pattern": "a(b"},
        "invalid_regex",
        "Invalid regular expression 'a(b': unclosed group. Escape the special characters (for "
        "example \\( \\[ \\. \\*), or pass literal=true to search for the text exactly as "
        "written.",
    ),
    (
        "grep-missing-path",
        "grep",
        {"pattern": "alpha", "path": "missing"},
        "not_found",
        "Path not found: {ws}/missing. Check the path, or omit it to search the working "
        "directory ({ws}).",
    ),
    (
        "grep-link-loop",
        "grep",
        {"pattern": "alpha", "path": "loop"},
        "symlink_loop",
        "{ws}/loop is a symbolic link loop (it never reaches a real file or directory). Search "
        "its parent directory or fix the link.",
    ),
    (
        "grep-dangling-link",
        "grep",
        {"pattern": "alpha", "path": "dangling"},
        "not_found",
        "{ws}/dangling is a symbolic link to 'nowhere', which does not exist.",
    ),
    (
        "grep-past-the-end",
        "grep",
        {"pattern": "alpha", "offset": 5},
        "offset_beyond_end",
        "offset=5 is past the last result: there are 2 result(s), so use an offset from 0 to 1.",
    ),
    (
        "glob-sort",
        "glob",
        {"pattern": "*.txt", "sort": "size"},
        "invalid_argument",
        "glob: sort must be one of name, modified, got 'size'.",
    ),
    (
        "glob-a-file",
        "glob",
        {"pattern": "*.txt", "path": "f.txt"},
        "not_a_directory",
        "{ws}/f.txt is a file; glob lists files below a directory. Read the file with read, or "
        "pass its directory ({ws}) as path.",
    ),
    (
        "glob-ignored-everywhere",
        "glob",
        {"pattern": "*.txt", "include_ignored": True},
        "too_broad",
        "glob: include_ignored=true lists files that .gitignore and the default exclusions "
        "(node_modules, dist, build, ...) hide, so it needs a narrow search: pass path=<a "
        "subdirectory>, a pattern that starts with a directory name ('node_modules/pkg/**'), or "
        "an exact file name ('**/package.json').",
    ),
    (
        "glob-empty",
        "glob",
        {"pattern": ""},
        "invalid_argument",
        "glob: pattern is empty. Pass a pattern like '**/*.py'.",
    ),
    (
        "glob-absolute",
        "glob",
        {"pattern": "/etc/*"},
        "invalid_argument",
        "glob: pattern '/etc/*' is absolute; patterns are relative to the search directory. "
        "Pass the directory as path and a relative pattern (for example path='/src', "
        "pattern='**/*.py').",
    ),
    (
        "glob-exclusion",
        "glob",
        {"pattern": "!*.txt"},
        "invalid_argument",
        "glob: pattern '!*.txt' starts with '!'; glob takes one pattern of files to list, not "
        "an exclusion.",
    ),
    (
        "glob-parent",
        "glob",
        {"pattern": "../*"},
        "invalid_argument",
        "glob: pattern '../*' contains '..'; pass the directory to search as path instead.",
    ),
    (
        "glob-open-class",
        "glob",
        {"pattern": "[a"},
        "invalid_argument",
        "glob: pattern '[a' is not a valid glob: unclosed character class; missing ']'. Check "
        "its [...] classes and {...} braces.",
    ),
    (
        "glob-open-brace",
        "glob",
        {"pattern": "{a"},
        "invalid_argument",
        "glob: pattern '{a' is not a valid glob: unclosed alternate group; missing '}' (maybe "
        "escape '{' with '[{]'?). Check its [...] classes and {...} braces.",
    ),
    (
        "glob-offset",
        "glob",
        {"pattern": "*.txt", "offset": -2},
        "invalid_argument",
        "glob: offset must be 0 or more (results are counted from 0), got -2.",
    ),
    (
        "glob-limit",
        "glob",
        {"pattern": "*.txt", "limit": -1},
        "invalid_argument",
        "glob: limit must be 1 or more, got -1. Omit it for a page.",
    ),
    (
        "glob-past-the-end",
        "glob",
        {"pattern": "*.txt", "offset": 9},
        "offset_beyond_end",
        "offset=9 is past the last result: there are 1 result(s), so use an offset from 0 to 0.",
    ),
    (
        "glob-missing-path",
        "glob",
        {"pattern": "*", "path": "missing"},
        "not_found",
        "Path not found: {ws}/missing. Check the path, or omit it to search the working "
        "directory ({ws}).",
    ),
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """f.txt and sub/g.py (both hold 'alpha'), a link loop and a dangling link."""
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g.py").write_text("print('alpha')\n")
    os.symlink("loop", tmp_path / "loop")
    os.symlink("nowhere", tmp_path / "dangling")
    return tmp_path


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "said"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_error_code_and_text(
    workspace: Path, tool: str, arguments: dict[str, Any], code: str, said: str
) -> None:
    result = call(tool, workspace, **arguments)
    assert result["isError"], result
    assert result["details"]["error"] == code, result["details"]
    assert text(result) == said.replace("{ws}", str(workspace))


# --- roots that cannot be searched -------------------------------------------------------------


@pytest.mark.parametrize("tool", ["grep", "glob"])
def test_a_fifo_root_is_refused_without_opening_it(workspace: Path, tool: str) -> None:
    os.mkfifo(workspace / "pipe")
    result = call(tool, workspace, pattern="alpha", path="pipe")
    assert result["details"] == {"error": "not_regular_file"}
    assert text(result) == (
        f"{workspace / 'pipe'} is not a regular file or a directory; {tool} searches files and "
        "directories."
    )


@pytest.mark.parametrize(
    ("path", "mode", "said"),
    [
        (
            "sub",
            os.R_OK | os.X_OK,
            "Permission denied: cannot list {path}. Search a directory you can read.",
        ),
        ("f.txt", os.R_OK, "Permission denied: cannot read {path}."),
    ],
    ids=["directory", "file"],
)
def test_an_unreadable_root_is_refused(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, path: str, mode: int, said: str
) -> None:
    """Permission bits do not stop root (CI runs as root), so the access check is what says no."""
    asked: list[tuple[str, int]] = []

    def deny(target: str, wanted: int) -> bool:
        asked.append((target, wanted))
        return False

    monkeypatch.setattr(search_root.os, "access", deny)
    result = call("grep", workspace, pattern="alpha", path=path)
    monkeypatch.undo()
    assert result["details"] == {"error": "permission_denied"}, result
    assert text(result) == said.format(path=workspace / path)
    # os.access is the process's own: other parts of the reference ask it too (whether a sandbox
    # program is there); the search root's question is the one judged
    mine = [(target, wanted) for target, wanted in asked if target.startswith(str(workspace))]
    assert mine == [(str(workspace / path), mode)]


def test_a_root_that_cannot_be_looked_at_names_the_failure(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = str(workspace / "sub")
    real_stat = os.stat

    def failing_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == target:
            raise OSError(errno.EIO, "Input/output error")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(search_root.os, "stat", failing_stat)
    result = call("grep", workspace, pattern="alpha", path="sub")
    monkeypatch.undo()
    assert result["details"] == {"error": "io_error"}, result
    assert text(result) == f"Cannot access {target}: Input/output error."


def test_a_root_under_home_is_found_through_the_calls_env(workspace: Path) -> None:
    env = {"HOME": str(workspace / "sub")}
    result = create().call("grep", {"pattern": "alpha", "path": "~"}, str(workspace), env=env)
    assert not result["isError"], result
    assert result["details"]["observation"]["files"] == ["sub/g.py"]


@pytest.mark.parametrize(("tool", "pattern"), [("grep", "alpha"), ("glob", "*.txt")])
def test_a_cancelled_search_says_so(workspace: Path, tool: str, pattern: str) -> None:
    cancel = threading.Event()
    cancel.set()
    result = create().call(tool, {"pattern": pattern}, str(workspace), cancel=cancel)
    assert result["details"] == {"error": "aborted"}
    assert text(result) == f"{tool} was cancelled before rg finished."
