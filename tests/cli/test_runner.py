"""The runner (``pytest_agenttools.cli.runner``): a run's scratch space, and what a batch of runs
reports of each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_agenttools.cli.runner import (
    ChildRun,
    SuiteRun,
    run_batch,
    scratch_hypothesis,
    seed_hypothesis_storage,
)
from pytest_agenttools.run.parallel import usable_cores

#: in a child Python: hypothesis's category table, which must come from the seeded file (the
#: walk over the code points that builds it would call unicodedata.category, made to fail)
LOAD_WITHOUT_BUILDING = """
import json, sys, unicodedata
def built(char):
    raise SystemExit("hypothesis built its table instead of loading the seeded one")
unicodedata.category = built
from hypothesis.internal.charmap import charmap
print(json.dumps(sorted(charmap().items())))
"""


def load_in_child(storage: Path) -> subprocess.CompletedProcess[str]:
    """Run LOAD_WITHOUT_BUILDING in a child Python whose hypothesis storage is ``storage``."""
    return subprocess.run(
        [sys.executable, "-c", LOAD_WITHOUT_BUILDING],
        env=dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=str(storage)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_seeded_storage_directory_holds_hypothesis_own_table(tmp_path: Path) -> None:
    from hypothesis.internal.charmap import charmap

    seed_hypothesis_storage(str(tmp_path))
    child = load_in_child(tmp_path)
    assert child.returncode == 0, child.stderr[-2000:]
    loaded = {name: tuple(map(tuple, spans)) for name, spans in json.loads(child.stdout)}
    assert loaded == charmap()


def test_an_unseeded_directory_makes_hypothesis_build_the_table(tmp_path: Path) -> None:
    """The check above can fail: without the seed, the child builds, and says so."""
    child = load_in_child(tmp_path)
    assert child.returncode != 0 and "built its table" in child.stderr


def test_seeding_a_directory_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    seed_hypothesis_storage(str(blocker))
    assert blocker.read_text() == "not a directory"


def test_the_table_is_built_once_per_user_and_a_damaged_copy_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_agenttools.cli import runner

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    table = runner._category_table.__wrapped__  # past this process's own cache
    first = table()
    (cached,) = tmp_path.glob("pytest-agenttools/unicode-categories-*.json")
    assert cached.read_bytes() == first == runner._walk_categories()
    assert not [p for p in cached.parent.iterdir() if p != cached], "a partial file was left"
    cached.write_bytes(first[:-1])  # a write cut short
    assert table() == first and cached.read_bytes() == first
    cached.write_bytes(b'[["Zz", [[0, 1]]]]')  # a readable copy is taken as it is
    assert table() == b'[["Zz", [[0, 1]]]]'


def test_a_runs_scratch_directory_is_seeded_and_removed() -> None:
    with scratch_hypothesis() as scratch:
        assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] == scratch
        assert list(Path(scratch).glob("unicode_data/*/charmap.json.gz"))
    assert not os.path.exists(scratch)


#: an implementation module that starts a thread when imported: a batch child that imports it
#: must not fork (the thread would not survive), and runs each run in a child Python instead
THREADED_IMPL = """
import threading, time
from pytest_agenttools.implementations.reference import create
threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
"""


def _timed_batch(impl: str) -> list[ChildRun]:
    """Two short runs of one clause's tests against ``impl``, in one batch."""
    run = SuiteRun(impl=impl, modules=("test_read",), clauses="READ-ARG-01")
    return run_batch([run, run], jobs=2)


def _check_seconds(children: list[ChildRun], elapsed: float) -> None:
    for child in children:
        assert child.exit_code == 0 and child.report, child.problem or child.output[-800:]
        # a run's own span: more than nothing, less than the whole batch around it
        assert 0 < child.wall_s <= elapsed, (child.wall_s, elapsed)
        assert child.cpu_s is not None
        # its pytest session at least (tenths of a second), at most what its span allows
        assert 0.05 < child.cpu_s <= child.wall_s * usable_cores() + 0.5, (child.cpu_s,)


def test_a_forked_run_reports_its_own_wall_and_cpu_seconds() -> None:
    started = time.monotonic()
    children = _timed_batch("pytest_agenttools.implementations.reference:create")
    _check_seconds(children, time.monotonic() - started)


def test_a_batch_child_with_a_thread_runs_each_run_in_a_child_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "threaded_impl.py").write_text(THREADED_IMPL, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path]))
    started = time.monotonic()
    children = _timed_batch("threaded_impl:create")
    _check_seconds(children, time.monotonic() - started)
