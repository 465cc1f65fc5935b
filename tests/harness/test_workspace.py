"""Where workspaces live, and the order the suite's tests start in (both about run time)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_agenttools.cli.selfcheck import default_jobs
from pytest_agenttools.harness import scratch, workspace
from pytest_agenttools.run.parallel import auto_workers, runs_the_suite, usable_cores
from pytest_agenttools.spec.clauses import suite_dir

pytest_plugins = ["pytester"]


@pytest.fixture
def no_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTTOOLS_TMPDIR", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)


def test_a_chosen_directory_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmpdir"))
    monkeypatch.setenv("AGENTTOOLS_TMPDIR", str(tmp_path / "kit"))
    assert scratch.workspace_base() == str(tmp_path / "kit")
    monkeypatch.delenv("AGENTTOOLS_TMPDIR")
    assert scratch.workspace_base() == str(tmp_path / "tmpdir")


def test_the_ram_directory_when_usable(
    no_choice: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(scratch, "RAM_DIR", str(tmp_path))
    assert scratch.workspace_base() == os.path.realpath(tmp_path)
    made = workspace.make_workspace()
    try:
        assert made.root.parent == Path(os.path.realpath(tmp_path))
    finally:
        workspace.remove_workspace(made)


@pytest.mark.parametrize("flaw", ["missing", "noexec", "full"])
def test_the_system_temp_dir_when_the_ram_directory_is_not_usable(
    no_choice: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flaw: str
) -> None:
    import tempfile

    monkeypatch.setattr(scratch, "RAM_DIR", str(tmp_path / "missing"))
    if flaw != "missing":
        monkeypatch.setattr(scratch, "RAM_DIR", str(tmp_path))
        real = os.statvfs(tmp_path)

        def statvfs(path: Any) -> Any:
            return SimpleNamespace(
                f_flag=real.f_flag | (os.ST_NOEXEC if flaw == "noexec" else 0),
                f_bavail=0 if flaw == "full" else real.f_bavail,
                f_frsize=real.f_frsize,
            )

        monkeypatch.setattr(scratch.os, "statvfs", statvfs)
    assert scratch.workspace_base() == os.path.realpath(tempfile.gettempdir())


LONG_TESTS = """
import pytest

long = pytest.mark.agenttools_long

def test_a(): pass
def test_b(): pass
@long(1)
def test_c(): pass
def test_d(): pass
@long(5)
def test_e(): pass
def test_f(): pass
"""


def test_long_tests_are_spread_longest_first(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LONG_TESTS)
    result = pytester.runpytest("--collect-only", "-q")
    order = [line.split("::")[1] for line in result.outlines if "::test_" in line]
    # six tests, two long: the longest first, the other half-way; the rest in their order
    assert order == ["test_e", "test_a", "test_b", "test_c", "test_d", "test_f"]


def test_a_run_without_long_tests_keeps_its_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LONG_TESTS.replace("@long", "# @long"))
    result = pytester.runpytest("--collect-only", "-q")
    order = [line.split("::")[1] for line in result.outlines if "::test_" in line]
    assert order == [f"test_{c}" for c in "abcdef"]


def _config(*args: str, where: str = "/") -> Any:
    return SimpleNamespace(
        args=list(args),
        invocation_params=SimpleNamespace(dir=Path(where)),
        option=SimpleNamespace(numprocesses="auto"),
    )


def test_only_a_run_of_the_suite_gets_more_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    suite = str(suite_dir())
    assert runs_the_suite(_config("pytest_agenttools.conformance"))
    assert runs_the_suite(_config("pytest_agenttools.conformance.test_read::test_x"))
    assert runs_the_suite(_config(os.path.join(suite, "test_read.py")))
    assert runs_the_suite(_config("test_read.py", where=suite))
    assert not runs_the_suite(_config())
    assert not runs_the_suite(_config("tests"))
    assert not runs_the_suite(_config("pytest_agenttools.conformance", "tests"))
    monkeypatch.setattr("xdist.plugin.pytest_xdist_auto_num_workers", lambda config: 2)
    assert auto_workers(_config("pytest_agenttools.conformance")) == 4
    assert auto_workers(_config("tests")) is None
    monkeypatch.setattr("xdist.plugin.pytest_xdist_auto_num_workers", lambda config: 16)
    assert auto_workers(_config("pytest_agenttools.conformance")) == 20
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert auto_workers(_config("pytest_agenttools.conformance")) is None


def test_selfcheck_runs_four_per_usable_core() -> None:
    """A process narrowed to one core (taskset, a container's cpuset) gets jobs for one core,
    not for every core of the machine."""
    script = (
        "import os\n"
        "from pytest_agenttools.run.parallel import usable_cores\n"
        "from pytest_agenttools.cli.selfcheck import default_jobs\n"
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "print(usable_cores(), default_jobs())\n"
    )
    narrowed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert narrowed.stdout.split() == ["1", "4"]
    cores = len(os.sched_getaffinity(0))
    assert usable_cores() == cores
    assert default_jobs() == max(2, min(32, 4 * cores))
