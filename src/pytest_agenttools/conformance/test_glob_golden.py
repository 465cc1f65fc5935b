"""Golden glob output of the `agenttools-reference/1` profile: exact texts, reviewed by a human.

The contract facts are asserted in test_glob.py; these pin wording and layout. Update with
``--snapshot-update --agenttools-golden-dir conformance/__snapshots__`` and review the diff.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.test_grep_golden import REFERENCE, project, rendered
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.markers import clause, profile

CASES: dict[str, dict[str, Any]] = {
    "python": {"pattern": "**/*.py"},
    "modified": {"pattern": "src/**", "sort": "modified"},
    "paged": {"pattern": "*", "limit": 3, "offset": 3},
    "include-ignored": {"pattern": "generated/*", "include_ignored": True},
    "include-ignored-broad": {"pattern": "**/*", "include_ignored": True},
    "none": {"pattern": "*.nothing"},
    "file-path": {"pattern": "*", "path": "README.md"},
    "sensitive-root": {"pattern": "*", "path": ".aws"},
    "absolute-pattern": {"pattern": "/etc/*"},
    "bad-class": {"pattern": "src/[*.py"},
}


@clause("GLOB-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(CASES))
def test_glob_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    project(ws)
    assert rendered(tools.call("glob", **CASES[case]), ws) == agenttools_golden


@clause("GLOB-GOLD-01")
@profile(REFERENCE)
def test_glob_many_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    trees.make_many_files(ws.root, 12, per_dir=5)
    tools.configure(**{"glob.max_results": 4})
    assert rendered(tools.call("glob", pattern="**/*.txt"), ws) == agenttools_golden
