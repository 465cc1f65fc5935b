"""Shared by the kit's tests: the reference behind each adapter, and the CLI as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from pytest_agenttools.adapters.inprocess import InProcessAdapter
from pytest_agenttools.adapters.stdio import StdioAdapter
from pytest_agenttools.conformance.bash_strategies import recorded_pids
from pytest_agenttools.markers import seconds_of
from pytest_agenttools.workspace import RAM_DIR, ram_dir_usable

# The kit's tests make and remove a great many files (suite runs, venvs, skeletons): they go to
# the RAM file system where there is a usable one, unless the caller chose TMPDIR. Set here, at
# import, so xdist's workers and every child process inherit it.
if not os.environ.get("TMPDIR") and ram_dir_usable(RAM_DIR):
    os.environ["TMPDIR"] = RAM_DIR
    tempfile.tempdir = None

KIT_LONG = "kit_long"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{KIT_LONG}(seconds): about how long the test takes on 2 busy cores; long tests start"
        " first, longest first",
    )
    # Under xdist a worker is handed one test at a time (two queued), not a run of consecutive
    # tests: with the long tests first, that is longest-processing-time-first scheduling, and no
    # worker is left with a queue of long tests while the others are idle. An explicit
    # --maxschedchunk still decides.
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``kit_long`` first, longest first; the rest in their own order."""
    items.sort(key=lambda item: -seconds_of(item, KIT_LONG))


# ``--hypothesis-profile dev`` or ``fuzz`` scales the kit's own properties (hypothesis' default
# profile runs 100 examples; a property that sets its own count scales it by the same factor)
settings.register_profile("dev", max_examples=400, deadline=None)
settings.register_profile("fuzz", max_examples=5000, deadline=None)

# The console script, found beside this interpreter: `python -m` from the repository root would
# import the source tree, which lacks the mapped subpackages, instead of the installed kit.
REFERENCE_STDIO = "agenttools serve"


@pytest.fixture(params=["in-process", "stdio"])
def reference(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The started reference, once in-process and once over stdio; closed afterwards."""
    if request.param == "stdio":
        adapter: Any = StdioAdapter(REFERENCE_STDIO, call_timeout=30)
    else:
        adapter = InProcessAdapter("pytest_agenttools.reference_impl:create")
    adapter.start()
    yield adapter
    adapter.close()


def run_agenttools(
    *args: str, cwd: Path, timeout: float = 1200, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``agenttools`` command in ``cwd`` and capture what it prints."""
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    return subprocess.run(
        [exe, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def strict_report(run: subprocess.CompletedProcess[str], report: Path) -> dict[str, Any]:
    """The JSON report of a strict run that must have gone exactly as expected.

    A failed run names the tests behind its failure (nodeid, outcome and the end of their
    message), not only the end of the summary table: a peer's run that fails one time in
    several under load is otherwise gone with its temp dir before anyone sees why.
    """
    data: dict[str, Any] = json.loads(report.read_text()) if report.is_file() else {}
    odd = [
        (t["nodeid"], t["outcome"], t.get("expectation"), t.get("message", "")[-800:])
        for t in data.get("tests", [])
        if t.get("outcome") in ("failed", "error", "xpassed")
    ]
    named = "\n\n".join(
        f"{nodeid} {outcome} ({expected}):\n{message}" for nodeid, outcome, expected, message in odd
    )
    if run.returncode != 0:
        pytest.fail(f"{named}\n\n{run.stdout[-3000:]}\n{run.stderr[-1000:]}", pytrace=False)
    summary = data["summary"]
    if summary["failed"] or summary["error"] or summary["xpassed"]:
        pytest.fail(f"{summary}\n\n{named}", pytrace=False)
    assert data["expectations"]["stale"] == data["expectations"]["unmatched"] == []
    return data


#: how long a kit test waits for what the reference does at once: generous, so that a loaded
#: machine never turns a wait into a verdict
WAIT_S = 30.0


def numbers_in(path: Path, count: int, wait: float = WAIT_S) -> list[int]:
    """The numbers a command wrote to ``path`` (pids, mostly), once there are ``count``."""
    for _ in range(int(wait / 0.05)):
        found = recorded_pids(path.parent, path.name)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"the command never wrote {count} numbers to {path}")
