"""Shared by the kit's tests: the reference behind each adapter, and the CLI as a user runs it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from pytest_agenttools.connect.inprocess import InProcessAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.markers import seconds_of
from pytest_agenttools.harness.scratch import RAM_DIR, ram_dir_usable
from tests.support import REFERENCE_STDIO

# The kit's tests make and remove a great many files (suite runs, venvs, skeletons): they go to
# the RAM file system where there is a usable one, unless the caller chose TMPDIR. Set here, at
# import, so xdist's workers and every child process inherit it.
if not os.environ.get("TMPDIR") and ram_dir_usable(RAM_DIR):
    os.environ["TMPDIR"] = RAM_DIR
    tempfile.tempdir = None

KIT_LONG = "kit_long"
#: a test that takes about this long or more (its kit_long seconds), or builds venvs (install,
#: mutation), belongs to the long tier: peers' strict runs, alternatives' whole suites, the
#: broken implementations' batches, the wheel in fresh venvs
LONG_TIER_S = 30
LONG_TIER_MARKS = ("install", "mutation")
TIERS = ("fast", "long", "all")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier",
        choices=TIERS,
        default="fast",
        help="the kit's tests to run: fast (default: every module, the long runs left out), "
        "long (only those), all",
    )


def in_long_tier(item: pytest.Item) -> bool:
    if any(item.get_closest_marker(name) for name in LONG_TIER_MARKS):
        return True
    return seconds_of(item, KIT_LONG) >= LONG_TIER_S


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests of the chosen tier (``--tier``); of those, the ones marked ``kit_long``
    first, longest first, the rest in their own order."""
    tier = config.getoption("tier")
    if tier != "all":
        keep = [item for item in items if in_long_tier(item) == (tier == "long")]
        left = [item for item in items if in_long_tier(item) != (tier == "long")]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = keep
    items.sort(key=lambda item: -seconds_of(item, KIT_LONG))


# ``--hypothesis-profile dev`` or ``fuzz`` scales the kit's own properties (hypothesis' default
# profile runs 100 examples; a property that sets its own count scales it by the same factor)
settings.register_profile("dev", max_examples=400, deadline=None)
settings.register_profile("fuzz", max_examples=5000, deadline=None)


@pytest.fixture(params=["in-process", "stdio"])
def reference(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The started reference, once in-process and once over stdio; closed afterwards."""
    if request.param == "stdio":
        adapter: Any = StdioAdapter(REFERENCE_STDIO, call_timeout=30)
    else:
        adapter = InProcessAdapter("pytest_agenttools.implementations.reference:create")
    adapter.start()
    yield adapter
    adapter.close()
