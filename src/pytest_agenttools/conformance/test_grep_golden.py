"""Golden grep output of the `agenttools-reference/1` profile: exact texts, reviewed by a human.

The contract facts are asserted in test_grep*.py; these pin wording and layout. Update with
``--snapshot-update --agenttools-golden-dir conformance/__snapshots__`` and review the diff.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.markers import clause, profile
from pytest_agenttools.run.snapshots import mask

REFERENCE = "agenttools-reference/1"
STABLE_DETAILS = (
    "error",
    "mode",
    "root",
    "offset",
    "shown",
    "total",
    "has_more",
    "next_offset",
    "total_matches",
    "line_truncations",
    "excluded",
    "sort",
)


def rendered(result: Any, workspace: Any) -> dict[str, Any]:
    """The result with the workspace path masked and only the stable details kept."""
    root = str(workspace.root)
    details = {
        key: mask(value, root) if isinstance(value, str) else value
        for key, value in result.details.items()
        if key in STABLE_DETAILS
    }
    texts = [mask(b["text"], root) for b in result.content if b["type"] == "text"]
    return {"isError": result.is_error, "text": texts, "details": details}


def project(ws: Workspace) -> None:
    made = trees.make_project(ws.root)
    trees.set_mtimes(ws.root, made)


CASES: dict[str, dict[str, Any]] = {
    "files": {"pattern": "needle"},
    "content-context": {"pattern": "needle", "output_mode": "content", "context": 1},
    "count": {"pattern": "needle|return", "output_mode": "count"},
    "glob-path": {"pattern": "needle", "path": "src", "glob": "*.py", "output_mode": "content"},
    "paged": {"pattern": "needle", "limit": 2, "offset": 2},
    "none": {"pattern": "absent_word"},
    "invalid-regex": {"pattern": "needle("},
    "sensitive-root": {"pattern": "needle", "path": ".ssh"},
    "missing-path": {"pattern": "needle", "path": "nope"},
    "line-break": {"pattern": "needle\nreturn"},
}


@clause("GREP-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(CASES))
def test_grep_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    project(ws)
    assert rendered(tools.call("grep", **CASES[case]), ws) == agenttools_golden


@clause("GREP-GOLD-01")
@profile(REFERENCE)
def test_grep_long_line_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    tools.configure(**{"grep.max_line_chars": 20})
    ws.put("min.js", "var needle = " + "1234567890" * 5 + ";\nneedle();\n")
    result = tools.call("grep", pattern="needle", output_mode="content")
    assert rendered(result, ws) == agenttools_golden
