"""Unit tests of the search helpers: glob translation, exclusion order, roots, and the rg runner.

File-only checks run on pyfakefs; the rg runner runs real processes (a stand-in shell script
where timing or signals matter, the real rg elsewhere).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.reference_impl import (
    globmatch,
    ripgrep,
    search_filters,
    search_paging,
    search_root,
)
from pytest_agenttools.reference_impl.results import ToolError


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
    marker = tmp_path / "terminated"
    script = f"trap 'touch {marker}' TERM; while true; do sleep 0.05; done"
    start = time.monotonic()
    found = ripgrep.run(["sh", "-c", script], str(tmp_path), timeout=0.3, max_bytes=100, grace=0.5)
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
