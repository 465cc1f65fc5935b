"""grep: what is searched at all: .gitignore, default exclusions, secrets, sensitive roots, and
ripgrep configuration that must not steer it.

Every "nothing leaked" test also proves that the ordinary files of the same tree were found, so
an implementation that finds nothing cannot pass a secrecy clause.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    expect_no_leak,
    found_files,
    grep_files,
    hostile_config,
    is_sensitive,
    search,
    search_trees,
    user_globs,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import expect_ok, grep_obs
from pytest_agenttools.harness.markers import clause, feature

N = trees.NEEDLE
IGNORED = {"generated/out.py", "debug.log", "src/local_only.py"}


def grep(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "grep", **arguments)


def modes(manifest: Manifest) -> list[str]:
    """The output modes the implementation offers."""
    found = ["files_with_matches"]
    found += ["content"] if manifest.has_feature("grep.content") else []
    found += ["count"] if manifest.has_feature("grep.count") else []
    return found


# --- .gitignore -----------------------------------------------------------------------------


@clause("GREP-IGN-02")
@feature("grep.gitignore")
def test_gitignore_inside_a_repository(tools: ToolClient, ws: Workspace) -> None:
    trees.make_git_repository(ws.root)
    trees.make_project(ws.root, secrets=False)
    found = grep_files(tools, ws, pattern=N)
    assert "src/app.py" in found and "README.md" in found, sorted(found)
    assert not IGNORED & found, f"gitignored files were searched: {sorted(IGNORED & found)}"


@clause("GREP-IGN-02")
@feature("grep.gitignore")
def test_glob_does_not_bring_back_ignored(tools: ToolClient, ws: Workspace) -> None:
    trees.make_git_repository(ws.root)
    trees.make_project(ws.root, secrets=False)
    found = grep_files(tools, ws, pattern=N, glob="*.py")
    assert "src/app.py" in found, sorted(found)
    assert not {"generated/out.py", "src/local_only.py"} & found, sorted(found)
    assert grep_files(tools, ws, pattern=N, glob=["*.log", "generated/**"]) == set()


@clause("GREP-IGN-02")
@feature("grep.gitignore")
def test_parent_gitignore_applies_to_a_subdirectory(tools: ToolClient, ws: Workspace) -> None:
    trees.make_git_repository(ws.root)
    ws.put(".gitignore", "*.tmp\n")
    ws.put("pkg/keep.txt", f"{N}\n")
    ws.put("pkg/drop.tmp", f"{N}\n")
    assert grep_files(tools, ws, pattern=N, path="pkg") == {"pkg/keep.txt"}


@clause("GREP-IGN-03")
@feature("grep.gitignore", "grep.gitignore_outside_git")
def test_gitignore_outside_a_repository(tools: ToolClient, ws: Workspace) -> None:
    trees.make_project(ws.root, secrets=False)
    assert not (ws.root / ".git").exists()
    found = grep_files(tools, ws, pattern=N)
    assert "src/app.py" in found, sorted(found)
    assert not IGNORED & found, f"gitignored files were searched: {sorted(IGNORED & found)}"
    found = grep_files(tools, ws, pattern=N, glob="*.py")
    assert "src/app.py" in found and not IGNORED & found, sorted(found)


# --- default exclusions ---------------------------------------------------------------------


@clause("GREP-EXCL-01")
@feature("grep.default_excludes")
def test_default_excluded_directories(tools: ToolClient, ws: Workspace) -> None:
    trees.make_project(ws.root, secrets=False, excluded=True)
    found = grep_files(tools, ws, pattern=N)
    assert set(trees.ORDINARY_MATCHES) <= found, sorted(found)
    for name in trees.excluded_dirs():
        inside = [f for f in found if name in f.split("/")[:-1]]
        assert not inside, f"{name}/ was searched: {inside}"


@clause("GREP-EXCL-01")
@feature("grep.default_excludes")
@pytest.mark.parametrize("name", ["node_modules", "build", ".venv", "__pycache__", "coverage"])
def test_root_inside_excluded_directory(tools: ToolClient, ws: Workspace, name: str) -> None:
    trees.make_project(ws.root, secrets=False, excluded=True)
    found = grep_files(tools, ws, pattern=N, path=name)
    assert f"{name}/top_{N}.txt" in found, sorted(found)


# --- secrets --------------------------------------------------------------------------------


@clause("GREP-SENS-01")
@pytest.mark.parametrize(
    "mode",
    [
        "files_with_matches",
        pytest.param("content", marks=feature("grep.content")),
        pytest.param("count", marks=feature("grep.count")),
    ],
)
def test_secrets_never_searched(tools: ToolClient, ws: Workspace, mode: str) -> None:
    trees.make_project(ws.root)
    secrets = trees.secret_files()
    result = expect_ok(grep(tools, pattern=N, output_mode=mode))
    expect_no_leak(result, ws, secrets, echoes=[N])
    found = set(found_files(result, ws))
    ordinary = set(trees.ORDINARY_MATCHES)
    assert ordinary <= found, f"the ordinary files must be found: missing {ordinary - found}"


@clause("GREP-SENS-01")
def test_secrets_never_searched_case_and_depth(tools: ToolClient, ws: Workspace) -> None:
    """Every name of the spec's tables, at the top and deep, in either case."""
    trees.make_project(ws.root)
    secrets = trees.secret_files()
    result = expect_ok(grep(tools, pattern=trees.SECRET_MARK, ignore_case=True))
    expect_no_leak(result, ws, secrets, echoes=[trees.SECRET_MARK])
    assert grep_files(tools, ws, pattern="helper") == {"src/util.py"}, "ordinary files are found"


@clause("GREP-SENS-02")
@pytest.mark.parametrize(
    ("glob", "ordinary"),
    [
        ("**/.env", set()),
        (".env*", set()),
        ("*.pem", set()),
        ("*.KEY", set()),
        (".ssh/*", set()),
        ("**/.ssh/**", set()),
        (".git/**", set()),
        ("**/id_*", set()),
        ("*", set(trees.ORDINARY_MATCHES)),
        ("*.{pem,py}", {"src/app.py"}),
        ("**/config/**", set()),
    ],
)
def test_user_glob_cannot_reinclude_secrets(
    tools: ToolClient, ws: Workspace, glob: str, ordinary: set[str]
) -> None:
    trees.make_project(ws.root)
    result = expect_ok(grep(tools, pattern=N, glob=glob))
    expect_no_leak(result, ws, trees.secret_files(), echoes=[N, glob])
    found = set(found_files(result, ws))
    assert ordinary <= found, f"glob {glob!r}: missing {sorted(ordinary - found)}"
    assert found <= set(trees.PROJECT), f"glob {glob!r}: found {sorted(found)}"
    assert grep_files(tools, ws, pattern=N) >= set(trees.ORDINARY_MATCHES), "the rest is found"


@clause("GREP-SENS-02")
@given(
    tree=search_trees(), glob=user_globs, mode=st.sampled_from(["files_with_matches", "content"])
)
@settings(max_examples=examples(25))
def test_no_glob_ever_shows_a_secret(
    tools: ToolClient, ws: Workspace, manifest: Manifest, tree: dict[str, str], glob: str, mode: str
) -> None:
    if mode not in modes(manifest):
        mode = "files_with_matches"
    where = ws.subdir()
    trees.build(where.root, tree)
    secrets = [os.path.join(where.root.name, p) for p in tree if is_sensitive(p)]
    result = expect_ok(grep(tools, pattern=N, path=str(where.root), glob=glob, output_mode=mode))
    expect_no_leak(result, ws, secrets, allowed=[str(where.root)], echoes=[N, glob])
    # the same tree without the glob: every ordinary file outside excluded directories is found
    found = grep_files(tools, ws, where.root.name, pattern=N, path=str(where.root))
    excluded = {d.lower() for d in trees.excluded_dirs()}
    expected = {
        p for p in tree if not is_sensitive(p) and not excluded & set(p.lower().split("/")[:-1])
    }
    assert expected <= found, f"ordinary files missing: {sorted(expected - found)}"
    assert not {p for p in found if is_sensitive(p)}


SENSITIVE_ROOTS = [".ssh", ".git/hooks", ".env", "home/.ssh", ".aws", "vendor/.SVN", "id_rsa"]


@clause("GREP-SENS-04")
@pytest.mark.parametrize("root", SENSITIVE_ROOTS)
def test_sensitive_root_shows_nothing(tools: ToolClient, ws: Workspace, root: str) -> None:
    trees.make_project(ws.root)
    secrets = trees.secret_files()
    for mode in ("files_with_matches", "content"):
        result = grep(tools, pattern=N, path=root, output_mode=mode)
        expect_no_leak(result, ws, secrets, allowed=[root], echoes=[N])
        if not result.is_error:
            observed = grep_obs(result)
            assert not observed.paths, f"a sensitive root must list nothing: {observed.paths}"
    assert grep_files(tools, ws, pattern=N) >= set(trees.ORDINARY_MATCHES), "the rest is found"


@clause("GREP-SENS-04")
def test_sensitive_root_by_absolute_path(tools: ToolClient, ws: Workspace) -> None:
    trees.make_project(ws.root)
    root = str(ws.file(".ssh"))
    result = grep(tools, pattern=N, path=root, output_mode="files_with_matches")
    expect_no_leak(result, ws, trees.secret_files(), allowed=[root], echoes=[N])
    assert grep_files(tools, ws, pattern=N, path="src") >= {
        "src/app.py",
        "src/web/index.ts",
        "src/web/view.tsx",
    }, "the ordinary files of another root are found"


# --- ripgrep configuration ------------------------------------------------------------------


@clause("GREP-CONFIG-01")
def test_ripgrep_config_changes_nothing(
    tools: ToolClient, ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trees.make_project(ws.root, secrets=False)
    ws.put("plain.txt", "nothing to see\n")
    ws.put("linked/real.txt", f"{N}\n")
    os.symlink(ws.file("linked"), ws.file("link"))
    before = grep_files(tools, ws, pattern=N)
    assert "src/app.py" in before and "plain.txt" not in before, sorted(before)
    env, marker = hostile_config(tmp_path)
    # in the call's env, and in this process's environment (an in-process implementation's own)
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", env["RIPGREP_CONFIG_PATH"])
    result = expect_ok(tools.call("grep", _env=env, _timeout=60.0, pattern=N))
    after = set(found_files(result, ws))
    assert after == before, (
        f"a ripgrep config changed the results: added {sorted(after - before)}, "
        f"removed {sorted(before - after)}"
    )
    assert not marker.exists(), "the config's --pre program ran"
