"""``expect_carries_results`` (GREP-PRES-01, GLOB-PRES-01) accepts every faithful form of the
results that ``expect_in_order`` accepts: as they are, or JSON-escaped (escaped quotes and
backslashes, ``\\uXXXX`` for non-ASCII)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.conformance.search_strategies import expect_carries_results
from pytest_agenttools.harness.contract import ToolCall, ToolResult
from pytest_agenttools.harness.workspace import Workspace
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

LINE = 'say("needle") \\ café 中文'


def answered_as(tmp_path: Path, tool: str, arguments: dict[str, Any], text: Any) -> ToolResult:
    """The reference's result for the call, its text replaced by ``text(observation)``."""
    (tmp_path / "sub dir").mkdir()
    (tmp_path / "sub dir" / "q\u00e9.py").write_text(LINE + "\n", encoding="utf-8")
    raw = ReferenceTools().call(tool, arguments, str(tmp_path))
    observation = raw["details"]["observation"]
    return ToolResult(
        content=({"type": "text", "text": text(observation)},),
        is_error=raw["isError"],
        details=raw["details"],
        call=ToolCall(tool, arguments, str(tmp_path)),
    )


@pytest.mark.parametrize("ascii_only", [True, False], ids=["uXXXX", "utf-8"])
def test_a_json_answer_carries_a_grep_line_with_quotes(tmp_path: Path, ascii_only: bool) -> None:
    result = answered_as(
        tmp_path,
        "grep",
        {"pattern": "needle", "output_mode": "content"},
        lambda obs: json.dumps(obs, ensure_ascii=ascii_only),
    )
    assert '\\"needle\\"' in result.text
    expect_carries_results(result, Workspace(tmp_path))


def test_a_json_answer_carries_glob_paths(tmp_path: Path) -> None:
    result = answered_as(tmp_path, "glob", {"pattern": "**/*.py"}, json.dumps)
    assert "\\u00e9" in result.text
    expect_carries_results(result, Workspace(tmp_path))


def test_a_text_without_the_line_still_fails(tmp_path: Path) -> None:
    result = answered_as(
        tmp_path,
        "grep",
        {"pattern": "needle", "output_mode": "content"},
        lambda obs: json.dumps({**obs, "lines": [{**obs["lines"][0], "text": "other"}]}),
    )
    with pytest.raises(AssertionError, match="line text"):
        expect_carries_results(result, Workspace(tmp_path))
