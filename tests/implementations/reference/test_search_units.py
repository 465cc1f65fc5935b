"""Unit tests of the search helpers: glob translation, exclusion order, roots, and the rg runner.

File-only checks run on pyfakefs; the rg runner runs real processes (a stand-in shell script
where timing or signals matter, the real rg elsewhere).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_agenttools.fixtures import trees
from pytest_agenttools.implementations.reference import (
    create,
    globmatch,
    grep,
    ripgrep,
    search_filters,
    search_input,
    search_ops,
    search_paging,
    search_root,
)
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.spec.clauses import load, render_markdown


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/deep/a.py", True),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/deep/a.py", False),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("/*.py", "a.py", True),
        ("/*.py", "s/a.py", False),
        ("**/*.{ts,tsx}", "w/a.tsx", True),
        ("**/*.{ts,tsx}", "w/a.js", False),
        ("file[12].txt", "file2.txt", True),
        ("file[!12].txt", "file2.txt", False),
        ("src/**", "src/a/b", True),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("{src,lib}/*.py", "lib/x.py", True),
    ],
)
def test_glob_translation(pattern: str, path: str, matches: bool) -> None:
    assert bool(globmatch.compile_glob(pattern).match(path)) is matches


@pytest.mark.parametrize(
    ("pattern", "name"),
    [("src/**/*.py", "*.py"), ("*.py", "*.py"), ("src/**", "*"), ("{a/b,c}", "*"), ("x/y", "y")],
)
def test_name_part(pattern: str, name: str) -> None:
    assert globmatch.name_part(pattern) == name


PATHS = ("a.py", "src/a.py", "src/x/y/a.py", ".hidden/a.py", "a.pyc", "src/a.md", "a b.py")


@pytest.mark.parametrize("pattern", ["**/*.py", "/**/*.py", "**/**/*.py", "**/a.{py,md}"])
def test_a_leading_double_star_selects_by_name_alone(pattern: str) -> None:
    """No per-path check for ``**/x``: rg's file type (the name part) selects exactly what the
    whole pattern does, path by path."""
    assert search_filters.path_filter([pattern]) is None
    whole, name = (
        globmatch.compile_glob(pattern),
        globmatch.compile_glob(globmatch.name_part(pattern)),
    )
    assert [bool(whole.match(p)) for p in PATHS] == [bool(name.match(p)) for p in PATHS]


@pytest.mark.parametrize("pattern", ["/*.py", "src/*.py", "**/src/*.py", "/**/src/*.py", "a:b"])
def test_a_pattern_anchored_or_with_a_directory_is_checked_by_path(pattern: str) -> None:
    keep = search_filters.path_filter([pattern])
    assert keep is not None
    assert not keep(b"elsewhere/deep/a.py")


def test_sensitive_rules_come_last() -> None:
    argv = search_filters.glob_arguments(["**/.env", "!*.md"], default_dirs=True, bulky=True)
    globs = [a for a in argv if a.startswith("--glob=")]
    sensitive = [f"--glob={g}" for g in search_filters.sensitive_globs()]
    assert globs[-len(sensitive) :] == sensitive
    assert globs[0] == "--glob=!*.md", "user exclusions stay ordinary globs"
    assert "--glob=**/.env" not in argv, "user inclusions select by file type, never --glob"
    assert f"--type={search_filters.SELECTION_TYPE}" in argv


@pytest.mark.parametrize(
    ("path", "sensitive"),
    [
        (".env", True),
        ("a/.ENV.local", True),
        ("keys/x.Pem", True),
        (".ssh/config", True),
        ("x/.git/HEAD", True),
        ("id_ed25519", True),
        ("id_rsa.pub", False),
        ("src/environment.py", False),
        (".envrc", False),
    ],
)
def test_sensitive_paths(path: str, sensitive: bool) -> None:
    assert search_filters.is_sensitive_path(path) is sensitive


def test_case_insensitive_glob() -> None:
    assert search_filters.case_insensitive("*.pem") == "*.[pP][eE][mM]"


def test_inside_default_excluded() -> None:
    assert search_filters.inside_default_excluded("/w/node_modules/x", "/w")
    assert not search_filters.inside_default_excluded("/w/src", "/w")
    assert not search_filters.inside_default_excluded("/home/build/proj", "/home/build/proj")


def test_paging_and_notice() -> None:
    items = list(range(7))
    chosen, page = search_paging.page_of(items, 2, 3, 100)
    assert chosen == [2, 3, 4] and page.next_offset == 5
    assert page.notice("files") == "[Showing files 3-5 of 7. Use offset=5 to continue.]"
    _, last = search_paging.page_of(items, 5, None, 100)
    assert last.next_offset is None and last.notice("files") is None
    with pytest.raises(ToolError, match="offset=9"):
        search_paging.page_of(items, 9, None, 100)


def test_roots_on_a_fake_file_system(fs: Any) -> None:
    fs.create_file("/w/a.txt")
    fs.create_dir("/w/.ssh")
    assert search_root.resolve(None, "/w", None, "grep").target is None
    assert search_root.resolve("a.txt", "/w", None, "grep").target == "a.txt"
    assert search_root.resolve(".ssh", "/w", None, "grep").sensitive == ".ssh"
    with pytest.raises(ToolError, match="not found"):
        search_root.resolve("nope", "/w", None, "grep")


def test_newest_first(tmp_path: Path) -> None:
    for index, name in enumerate(["b", "a", "c"]):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, ns=(index, index * 10**9))
    os.utime(tmp_path / "a", ns=(0, 2 * 10**9))
    assert search_paging.newest_first(os.fsencode(tmp_path), [b"a", b"b", b"c"]) == [
        b"a",
        b"c",
        b"b",
    ]


def test_output_cap_drops_torn_record(tmp_path: Path) -> None:
    script = "i=0; while true; do printf 'record-%06d\\0' $i; i=$((i+1)); done"
    found = ripgrep.run(["sh", "-c", script], str(tmp_path), timeout=20, max_bytes=1000)
    assert found.capped and len(found.stdout) == 1000
    records = found.records(b"\0")
    assert records and all(len(r) == len(b"record-000000") for r in records)


def test_timeout_sends_sigterm_then_sigkill(tmp_path: Path) -> None:
    marker, pid_file = tmp_path / "terminated", tmp_path / "pid"
    script = f"echo $$ > {pid_file}; trap 'touch {marker}' TERM; while true; do sleep 0.05; done"
    start = time.monotonic()
    try:
        found = ripgrep.run(
            ["sh", "-c", script], str(tmp_path), timeout=0.3, max_bytes=100, grace=0.5
        )
    finally:
        # a run that fails to kill (a mutant of ripgrep.run) must not leave the loop behind
        with contextlib.suppress(ValueError, OSError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    elapsed = time.monotonic() - start
    assert found.timed_out and found.returncode is not None
    assert marker.exists(), "SIGTERM comes first"
    assert elapsed < 5, f"took {elapsed:.1f}s: SIGKILL must follow the grace period"


def test_cancel_stops_the_run(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    found = ripgrep.run(
        ["sleep", "30"], str(tmp_path), timeout=30, max_bytes=100, cancel=cancel, grace=0.2
    )
    assert found.cancelled


def test_find_rg_prefers_the_interpreter_directory() -> None:
    found = ripgrep.find_rg()
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    assert found == beside if os.path.exists(beside) else os.path.basename(found) == "rg"


def test_find_rg_absent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(ripgrep.sysconfig, "get_path", lambda name: str(tmp_path))
    with pytest.raises(ToolError, match="pip install ripgrep"):
        ripgrep.find_rg(env_path=str(tmp_path))


def test_real_rg_lists_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / ".env").write_text("x")
    argv = [ripgrep.find_rg(), "--files", "--hidden", "--null"]
    argv += search_filters.glob_arguments([], default_dirs=True)
    found = ripgrep.run(argv, str(tmp_path), timeout=20, max_bytes=1 << 20)
    assert found.records(b"\0") == [b"a.txt"]


# --- the spec's tables, and the reference's lists ---------------------------------------------


def test_reference_lists_equal_the_spec_tables() -> None:
    """The suite builds its trees from the spec's tables; the reference must hide the same."""
    spec = load()
    assert spec.table("search.excluded_dirs").values == search_filters.DEFAULT_EXCLUDED_DIRS
    assert spec.table("search.vcs_dirs").values == search_filters.VCS_DIRS
    assert spec.table("search.sensitive_dirs").values == search_filters.SENSITIVE_DIRS
    assert spec.table("search.sensitive_files").values == search_filters.SENSITIVE_FILES


def test_fixture_trees_cover_every_table_entry() -> None:
    secrets = trees.secret_files()
    for name in trees.sensitive_dirs():
        assert any(name in p.split("/") for p in secrets), f"no secret below {name}"
    for pattern in trees.sensitive_files():
        assert any(fnmatch.fnmatch(p.rsplit("/", 1)[-1].lower(), pattern) for p in secrets), (
            f"no secret file named like {pattern}"
        )
    assert all(search_filters.is_sensitive_path(p) for p in secrets)
    assert not any(search_filters.is_sensitive_path(p) for p in trees.PROJECT)
    excluded = trees.excluded_files()
    for name in trees.excluded_dirs():
        assert (
            f"{name}/top_needle.txt" in excluded and f"src/{name}/lib/deep_needle.txt" in excluded
        )


def test_spec_tables_render_into_docs() -> None:
    markdown = render_markdown(load(), {})
    assert "### Table `search.sensitive_files`: Secret file names" in markdown
    assert "`.pgpass`" in markdown and "`build_env`" in markdown


@pytest.mark.parametrize("use_git", [None, False])
def test_git_repository_fixture_is_accepted_by_git(tmp_path: Path, use_git: bool | None) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed, so nothing can say whether it accepts the tree")
    trees.make_git_repository(tmp_path, use_git=use_git)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    found = subprocess.run(
        [git, "rev-parse", "--git-dir"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    assert os.path.realpath(tmp_path / found.stdout.strip()) == os.path.realpath(tmp_path / ".git")


# --- glob dialects ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "dot", "matches"),
    [
        ("*.py", "a.py", False, True),
        ("*.py", "src/a.py", False, False),
        ("**/*.py", "a.py", False, True),
        ("**/*.py", "src/deep/a.py", False, True),
        ("**/*.py", ".hidden/a.py", False, False),
        ("**/*.py", ".hidden/a.py", True, True),
        ("*", ".bashrc", False, False),
        ("*", ".bashrc", True, True),
        (".*", ".bashrc", False, True),
        ("src/**", "src/a/b/c", False, True),
        ("src/deep/", "src/deep/c.py", False, False),
        ("./*.py", "top.py", False, True),
        ("lib/*.{ts,tsx}", "lib/f.tsx", False, True),
        ("{a,b}/{c,d}.txt", "b/c.txt", False, True),
        ("file[!12].txt", "file3.txt", False, True),
        ("a**b", "axxb", False, True),
        ("a**b", "a/b", False, False),
    ],
)
def test_anchored_dialect_translation(pattern: str, path: str, dot: bool, matches: bool) -> None:
    assert bool(globmatch.compile_anchored(pattern, dot=dot).match(path)) is matches


def test_brace_expansion_is_bounded() -> None:
    assert globmatch.expand_braces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"]
    assert globmatch.expand_braces("{only}") == ["{only}"]
    with pytest.raises(globmatch.GlobSyntaxError, match="alternatives"):
        globmatch.expand_braces("{a,b}" * 20)


# --- input checks, ports, results -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [("a\x00b", "NUL"), ("a\ud800", "surrogate"), ("x" * 20, "at most 10")],
)
def test_check_text_refuses_what_cannot_be_searched(value: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        search_input.check_text(value, "grep", "pattern", max_chars=10, what="patterns")


def test_long_patterns_go_to_rg_in_a_file() -> None:
    ops = search_ops.GrepOps()
    with ops.pattern_arguments("short") as args:
        assert args == ["--regexp=short"]
    big = "é" * 40_000
    with ops.pattern_arguments(big) as args:
        assert len(args) == 1 and args[0].startswith("--file=")
        name = args[0].removeprefix("--file=")
        assert Path(name).read_text(encoding="utf-8") == big
    assert not os.path.exists(name), "the pattern file is removed after the run"


def test_context_window_is_bisected() -> None:
    numbers = [1, 2, 3, 50, 51, 99]
    window = search_ops.GrepOps().window
    assert list(window(numbers, 50, 1)) == [50, 51]
    assert list(window(numbers, 2, 10**12)) == numbers


def test_wide_context_is_bounded_per_page_and_shared_by_the_matches(tmp_path: Path) -> None:
    """A context of 10^12 around a full page of matches shows at most MAX_CONTEXT_LINES context
    lines, each match reaching equally far, and says that lines were left out."""
    lines = [("match" if i % 1000 == 0 else "other") + f" {i}" for i in range(20_000)]
    (tmp_path / "f.txt").write_text("".join(f"{line}\n" for line in lines))
    tools = create()
    arguments = {"pattern": "match", "output_mode": "content", "context": 10**12}
    result = tools.call("grep", arguments, str(tmp_path))
    shown = result["details"]["observation"]["lines"]
    context = [x["line"] for x in shown if not x["match"]]
    matches = [x["line"] for x in shown if x["match"]]
    assert matches == [i * 1000 + 1 for i in range(20)]
    assert len(context) == grep.MAX_CONTEXT_LINES
    after = {m: sum(1 for n in context if 0 < n - m < 500) for m in matches}
    before = {m: sum(1 for n in context if 0 < m - n < 500) for m in matches[1:]}
    reach = [*after.values(), *before.values()]
    assert min(reach) > 40 and max(reach) - min(reach) <= 1, (after, before)
    assert result["details"]["context_cut"] is True
    assert "Context lines were cut" in result["content"][0]["text"]
    small = tools.call("grep", {**arguments, "context": 2}, str(tmp_path))
    assert "context_cut" not in small["details"]
    assert len(small["details"]["observation"]["lines"]) == 20 * 5 - 2


def test_engine_env_drops_ripgrep_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", "/tmp/rc")
    env = search_ops.SearchOps().engine_env({"RIPGREP_CONFIG_PATH": "/x"})
    assert "RIPGREP_CONFIG_PATH" not in env
    assert search_ops.SearchOps().base_flags()[0] == "--no-config"


def test_observed_paths() -> None:
    assert search_paging.observed_path("/w/src", "a.py", "/w") == "src/a.py"
    assert search_paging.observed_path("/w", "./a.py", "/w") == "a.py"
    assert search_paging.observed_path("/elsewhere", "a.py", "/w") == "/elsewhere/a.py"


def test_engine_crash_is_a_clear_error() -> None:
    crashed = ripgrep.RgRun(b"", "memory allocation of 43204320096 bytes failed", -6)
    with pytest.raises(ToolError, match="too complex"):
        grep._check_run(crashed, "(a|b)" * 5, 30.0)
    refused = ripgrep.RgRun(b"", "rg: error parsing glob '[': unclosed class", 2)
    with pytest.raises(ToolError, match="glob pattern is not valid"):
        grep._check_run(refused, "x", 30.0)


def test_a_run_that_ends_after_its_deadline_timed_out(tmp_path: Path) -> None:
    found = ripgrep.run(["sh", "-c", "sleep 0.3"], str(tmp_path), timeout=0.1, max_bytes=100)
    assert found.timed_out


def test_too_long_command_line_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="too long"):
        search_ops.SearchOps().run(
            ["true", "x" * 200_000], str(tmp_path), timeout=5, max_bytes=100, cancel=None, env=None
        )


# --- no input makes the reference answer with an exception ------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["a\x00b", "\ud800", "x" * 140_000, "[", "{a,", "**/", "./", "~/x", "\n"]),
    st.lists(st.text(max_size=8), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
_GREP_NAMES = ["pattern", "path", "glob", "output_mode", "literal", "ignore_case", "context"]
_GLOB_NAMES = ["pattern", "path", "include_ignored", "sort", "offset", "limit"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool=st.sampled_from(["grep", "glob"]),
    arguments=st.dictionaries(
        st.sampled_from([*_GREP_NAMES, *_GLOB_NAMES, "offset", "limit"]), _VALUES, max_size=5
    ),
)
def test_no_argument_value_escapes_as_an_exception(
    search_tree: Path, tool: str, arguments: dict[str, Any]
) -> None:
    result = create().call(tool, arguments, str(search_tree))
    assert result["details"].get("error") != "internal", result["content"][0]["text"]


@pytest.fixture(scope="module")
def search_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    trees.make_project(root)
    return root


def test_spec_tables_of_rows_load_and_render(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[section]\ntool = "edit"\ntext = "x"\n\n'
        '[[table]]\nname = "edit.t"\ntool = "edit"\ntitle = "T"\ntext = "Rows."\n'
        'columns = ["point", "folds_to"]\nrows = [["U+2018", "\'"], ["U+007C", "|"]]\n\n'
        '[[clause]]\nid = "EDIT-X-01"\ntool = "edit"\nlevel = "MUST"\ntitle = "t"\n'
        'text = "t"\nrationale = "r"\n',
        encoding="utf-8",
    )
    loaded = load(spec)
    assert loaded.tables["edit.t"].rows == (("U+2018", "'"), ("U+007C", "|"))
    assert loaded.table("edit.t").values == ("U+2018", "U+007C")
    markdown = render_markdown(loaded, {})
    assert "| point | folds_to |" in markdown and "| `U+007C` | `\\|` |" in markdown
    bad = tmp_path / "bad.toml"  # another file: load() caches what it parsed
    bad.write_text('[[table]]\nname = "bad"\ntool = "edit"\ncolumns = ["a"]\nrows = [["x", "y"]]\n')
    with pytest.raises(ValueError, match="rows of that many strings"):
        load(bad)
