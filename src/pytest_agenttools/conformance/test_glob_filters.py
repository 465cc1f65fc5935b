"""glob: what is listed at all: .gitignore, default exclusions, include_ignored, secrets,
sensitive roots, bulky files, and ripgrep configuration that must not steer it.

Every "nothing leaked" test also proves that the ordinary files of the same tree are listed.
Patterns here read the same in every glob dialect (GLOB-PAT-03), unless a test says otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.search_strategies import (
    expect_no_leak,
    found_files,
    glob_paths,
    hostile_config,
    is_sensitive,
    search,
    search_trees,
    user_globs,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import (
    expect_error,
    expect_names_argument,
    expect_ok,
    glob_obs,
)
from pytest_agenttools.harness.markers import clause, feature

ORDINARY_PY = {"src/app.py", "src/util.py"}


def glob(tools: ToolClient, **arguments: Any) -> Any:
    return search(tools, "glob", **arguments)


# --- .gitignore and default exclusions ------------------------------------------------------


@clause("GLOB-IGN-03")
@feature("glob.gitignore")
def test_gitignore_inside_a_repository(tools: ToolClient, ws: Workspace) -> None:
    trees.make_git_repository(ws.root)
    trees.make_project(ws.root, secrets=False)
    listed = set(glob_paths(tools, ws, pattern="**/*.py"))
    assert listed >= ORDINARY_PY, sorted(listed)
    hidden = {"generated/out.py", "src/local_only.py"}
    assert not hidden & listed, f"gitignored files listed: {sorted(hidden & listed)}"
    assert glob_paths(tools, ws, pattern="**/*.log") == []
    assert glob_paths(tools, ws, pattern="generated/**") == []


@clause("GLOB-IGN-03")
@feature("glob.gitignore")
def test_gitignore_of_a_parent_directory(tools: ToolClient, ws: Workspace) -> None:
    trees.make_git_repository(ws.root)
    ws.put(".gitignore", "*.tmp\n")
    ws.put("pkg/keep.txt", "")
    ws.put("pkg/drop.tmp", "")
    assert glob_paths(tools, ws, pattern="**", path="pkg") == ["pkg/keep.txt"]


@clause("GLOB-IGN-04")
@feature("glob.gitignore", "glob.gitignore_outside_git")
def test_gitignore_outside_a_repository(tools: ToolClient, ws: Workspace) -> None:
    trees.make_project(ws.root, secrets=False)
    assert not (ws.root / ".git").exists()
    listed = set(glob_paths(tools, ws, pattern="**/*.py"))
    assert listed >= ORDINARY_PY, sorted(listed)
    hidden = {"generated/out.py", "src/local_only.py"}
    assert not hidden & listed, f"gitignored files listed: {sorted(hidden & listed)}"
    assert glob_paths(tools, ws, pattern="**/*.log") == []


@clause("GLOB-EXCL-01")
@feature("glob.default_excludes")
def test_excluded_directories_not_listed(tools: ToolClient, ws: Workspace) -> None:
    trees.make_project(ws.root, secrets=False, excluded=True)
    listed = set(glob_paths(tools, ws, pattern="**/*.txt"))
    assert "docs/guide.txt" in listed, sorted(listed)
    for name in trees.excluded_dirs():
        inside = [p for p in listed if name in p.split("/")[:-1]]
        assert not inside, f"{name}/ was listed: {inside}"
        assert glob_paths(tools, ws, pattern=f"{name}/**") == [], f"{name}/** named it"


@clause("GLOB-EXCL-01")
@feature("glob.default_excludes")
@pytest.mark.parametrize("name", ["node_modules", "dist", ".venv", "__pycache__", "out"])
def test_root_inside_excluded_directory(tools: ToolClient, ws: Workspace, name: str) -> None:
    trees.make_project(ws.root, secrets=False, excluded=True)
    listed = glob_paths(tools, ws, pattern="**", path=name)
    assert f"{name}/top_{trees.NEEDLE}.txt" in listed, listed


@clause("GLOB-IGN-02")
@feature("glob.include_ignored")
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"pattern": "node_modules/pkg/*.js"}, ["node_modules/pkg/index.js"]),
        ({"pattern": "**/package.json"}, ["node_modules/pkg/package.json"]),
        ({"pattern": "*.py", "path": "generated"}, ["generated/out.py"]),
        ({"pattern": "generated/*.py"}, ["generated/out.py"]),
    ],
    ids=["dir-prefix", "exact-name", "narrow-path", "ignored-dir-prefix"],
)
def test_include_ignored_narrow(
    tools: ToolClient, ws: Workspace, arguments: dict[str, Any], expected: list[str]
) -> None:
    trees.make_project(ws.root)
    result = expect_ok(glob(tools, include_ignored=True, **arguments))
    assert sorted(found_files(result, ws)) == expected
    expect_no_leak(result, ws, trees.secret_files(), echoes=[arguments["pattern"]])


@clause("GLOB-IGN-02")
@feature("glob.include_ignored")
@pytest.mark.parametrize("pattern", ["**/*", "*", "*.js", "**"])
def test_include_ignored_broad_is_error(
    tools: ToolClient, ws: Workspace, manifest: Manifest, pattern: str
) -> None:
    trees.make_project(ws.root, secrets=False)
    result = expect_error(glob(tools, pattern=pattern, include_ignored=True), what="too broad")
    expect_names_argument(result, manifest, "glob", "include_ignored")


# --- secrets --------------------------------------------------------------------------------

LEAK_PATTERNS = [
    ("**", ORDINARY_PY),
    ("**/*.py", ORDINARY_PY),
    (".env", set()),
    ("**/.env*", set()),
    ("**/*.pem", set()),
    ("**/*.KEY", set()),
    (".ssh/*", set()),
    ("**/id_*", set()),
    (".git/**", set()),
    ("vendor/**", set()),
    ("config/**", set()),
    ("**/credentials", set()),
]


@clause("GLOB-SENS-01")
@pytest.mark.parametrize(("pattern", "ordinary"), LEAK_PATTERNS, ids=[p for p, _ in LEAK_PATTERNS])
def test_secrets_never_listed(
    tools: ToolClient, ws: Workspace, pattern: str, ordinary: set[str]
) -> None:
    trees.make_project(ws.root)
    secrets = trees.secret_files()
    result = expect_ok(glob(tools, pattern=pattern))
    expect_no_leak(result, ws, secrets, echoes=[pattern])
    listed = set(found_files(result, ws))
    assert ordinary <= listed, f"{pattern!r}: the ordinary files {sorted(ordinary - listed)}"
    assert set(glob_paths(tools, ws, pattern="**/*.py")) >= ORDINARY_PY, "the rest is listed"


@clause("GLOB-SENS-01")
@feature("glob.include_ignored")
@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        (".env", None),
        ("**/.env*", "config"),
        ("**/*.pem", "config"),
        ("*", ".git"),
        ("**/id_*", "home"),
        ("store/**", "vendor/.hg"),
        ("**/config", None),
    ],
)
def test_secrets_never_listed_with_include_ignored(
    tools: ToolClient, ws: Workspace, pattern: str, path: str | None
) -> None:
    trees.make_project(ws.root)
    arguments: dict[str, Any] = {"pattern": pattern, "include_ignored": True}
    if path:
        arguments["path"] = path
    result = glob(tools, **arguments)
    expect_no_leak(result, ws, trees.secret_files(), allowed=[path or "."], echoes=[pattern])
    narrow = expect_ok(glob(tools, pattern="node_modules/pkg/*", include_ignored=True))
    assert set(found_files(narrow, ws)) == {
        "node_modules/pkg/index.js",
        "node_modules/pkg/package.json",
    }, "include_ignored lists the ordinary ignored files"


@clause("GLOB-SENS-01")
@given(tree=search_trees(), pattern=user_globs.filter(lambda g: not g.startswith("!")))
@settings(max_examples=examples(25))
def test_no_pattern_ever_lists_a_secret(
    tools: ToolClient, ws: Workspace, tree: dict[str, str], pattern: str
) -> None:
    where = ws.subdir()
    trees.build(where.root, tree)
    secrets = [os.path.join(where.root.name, p) for p in tree if is_sensitive(p)]
    for include_ignored in (False, True):
        arguments: dict[str, Any] = {"pattern": pattern, "path": str(where.root)}
        if include_ignored:
            if not tools.manifest.has_feature("glob.include_ignored"):
                continue
            arguments["include_ignored"] = True
        result = glob(tools, **arguments)  # path is a subdirectory: narrow, never refused
        expect_no_leak(result, ws, secrets, allowed=[str(where.root)], echoes=[pattern])
    listed = set(glob_paths(tools, ws, where.root.name, pattern="**", path=str(where.root)))
    excluded = {d.lower() for d in trees.excluded_dirs()}
    expected = {
        p
        for p in tree
        if not is_sensitive(p)
        and not excluded & set(p.lower().split("/")[:-1])
        and not any(part.startswith(".") for part in p.split("/"))  # ** in every dialect
    }
    assert expected <= listed, f"ordinary files missing: {sorted(expected - listed)}"


SENSITIVE_ROOTS = [".ssh", ".git", ".aws", "home/.ssh", ".git/hooks", "vendor/.SVN", ".gnupg"]


@clause("GLOB-SENS-03")
@pytest.mark.parametrize("root", SENSITIVE_ROOTS)
def test_sensitive_root_shows_nothing(tools: ToolClient, ws: Workspace, root: str) -> None:
    trees.make_project(ws.root)
    for pattern in ("**", "*"):
        result = glob(tools, pattern=pattern, path=root)
        expect_no_leak(result, ws, trees.secret_files(), allowed=[root], echoes=[pattern])
        if not result.is_error:
            assert glob_obs(result).paths == (), "a sensitive root lists nothing"
    assert set(glob_paths(tools, ws, pattern="**/*.py")) >= ORDINARY_PY, "the rest is listed"


# --- bulky files ----------------------------------------------------------------------------


@clause("GLOB-BULK-01")
@feature("glob.skip_bulky")
def test_broad_patterns_skip_bulky(tools: ToolClient, ws: Workspace) -> None:
    bulky = ["img/logo.png", "media/clip.MP4", "dist.zip", "lib/native.so", "model.safetensors"]
    trees.build(ws.root, dict.fromkeys([*bulky, "src/main.py", "notes.txt", "w.gguf"], "x"))
    for pattern in ("**", "**/*", "**/*.*"):
        assert sorted(glob_paths(tools, ws, pattern=pattern)) == ["notes.txt", "src/main.py"]
    assert glob_paths(tools, ws, pattern="**/*.png") == ["img/logo.png"]
    assert glob_paths(tools, ws, pattern="**/*.safetensors") == ["model.safetensors"]
    assert glob_paths(tools, ws, pattern="*.gguf") == ["w.gguf"]


# --- ripgrep configuration ------------------------------------------------------------------


@clause("GLOB-CONFIG-01")
def test_ripgrep_config_changes_nothing(
    tools: ToolClient, ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trees.make_project(ws.root, secrets=False)
    ws.put("linked/real.txt", "")
    os.symlink(ws.file("linked"), ws.file("link"))
    before = glob_paths(tools, ws, pattern="**")
    assert "src/app.py" in before and "src/web/index.ts" in before, before
    env, _ = hostile_config(tmp_path)
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", env["RIPGREP_CONFIG_PATH"])
    result = expect_ok(tools.call("glob", _env=env, _timeout=60.0, pattern="**"))
    after = found_files(result, ws)
    assert after == before, (
        f"a ripgrep config changed the listing: added {sorted(set(after) - set(before))}, "
        f"removed {sorted(set(before) - set(after))}"
    )
