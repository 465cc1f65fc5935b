"""Suite-wide fixtures (short names for the plugin's fixtures) and the hypothesis profiles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.confine_support import Confined, confined_roots
from pytest_agenttools.conformance.strategies import CI_EXAMPLES
from pytest_agenttools.run.quick import QUICK_EXAMPLES
from pytest_agenttools.run.session import get_session

_COMMON: dict[str, Any] = {
    "deadline": None,
    # failures print a @reproduce_failure blob; the example database (under
    # HYPOTHESIS_STORAGE_DIRECTORY, which `agenttools run` points at the run's scratch dir)
    # replays them first on the next run
    "print_blob": True,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
#: ci runs CI_EXAMPLES per property, new ones each run; strategies.examples(n) scales a slow
#: property's own count by the same factor
settings.register_profile("ci", max_examples=CI_EXAMPLES, **_COMMON)
settings.register_profile("dev", max_examples=CI_EXAMPLES * 4, **_COMMON)
settings.register_profile("fuzz", max_examples=CI_EXAMPLES * 50, **_COMMON)
#: ci's examples without shrinking: a failure is reported as found, not minimised first. For a run
#: that needs only the verdict (a known implementation checked against its expectations file),
#: where minimising the counterexamples of its expected failures is most of the time spent
settings.register_profile(
    "verdict",
    max_examples=CI_EXAMPLES,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    **_COMMON,
)

#: a quick run's (``--agenttools-quick``): a first verdict, few examples, none shrunk
settings.register_profile(
    "quick",
    max_examples=QUICK_EXAMPLES,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    **_COMMON,
)


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile(get_session(config).settings.hypothesis_profile)


@pytest.fixture
def tools(agenttools_client: ToolClient) -> ToolClient:
    """The tool client for this test (see ``agenttools_client``)."""
    return agenttools_client


@pytest.fixture
def ws(agenttools_workspace: Workspace) -> Workspace:
    """This test's workspace (see ``agenttools_workspace``)."""
    return agenttools_workspace


@pytest.fixture
def manifest(agenttools_manifest: Manifest) -> Manifest:
    """The implementation's manifest (dialect, limits, features)."""
    return agenttools_manifest


@pytest.fixture
def style(agenttools_manifest: Manifest) -> str:
    """The declared line-number style: arrow, tab, pipe or none."""
    return agenttools_manifest.line_numbers


@pytest.fixture
def confined(agenttools_client: ToolClient, agenttools_workspace: Workspace) -> Iterator[Confined]:
    """This test's confinement roots (confine_support.py); lifted when the test ends."""
    with confined_roots(agenttools_client, agenttools_workspace) as roots:
        yield roots
