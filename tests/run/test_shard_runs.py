"""Whole runs split into shards and merged have the unsharded run's verdicts: the reference over
two tools' suites, and a real peer (the MCP filesystem server, its edit suite: 33 known
failures) with its expectations, strict.

The reference runs grep and glob (301 tests, about 22 CPU seconds a run, most of it the start
of a run with two workers): enough for every kind of group the deal makes (clauses with many
tests, properties, modules of tests that name no clause), at a price the long tier can pay five
times. Every run takes the verdict-only profile (the fewest examples that still judge each
property), as the peers' strict runs do: the outcomes are what is compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.cli.runner import VERDICT_ONLY
from tests.connect.mcp.test_client import EXAMPLE, FS_ENTRY, need_example
from tests.support import run_agenttools


def _sharded(tmp_path: Path, args: list[str], count: int) -> tuple[Any, dict[str, Any]]:
    parts = []
    for index in range(1, count + 1):
        name = f"shard-{index}.json"
        run_agenttools(
            "run", *args, "--shard", f"{index}/{count}", "--report-json", name, "--", "-n", "2",
            *VERDICT_ONLY, cwd=tmp_path,
        )  # fmt: skip
        assert (tmp_path / name).is_file(), f"shard {index}/{count} wrote no report"
        parts.append(name)
    merged = run_agenttools(
        "report", "--merge", *parts, "--strict", "--json", "merged.json", cwd=tmp_path
    )
    return merged, json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))


def _whole(tmp_path: Path, args: list[str]) -> tuple[Any, dict[str, Any]]:
    run = run_agenttools(
        "run", *args, "--report-json", "whole.json", "--", "-n", "2", *VERDICT_ONLY, cwd=tmp_path
    )
    return run, json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))


def _same(whole: dict[str, Any], merged: dict[str, Any]) -> None:
    for key in ("clauses", "levels", "summary", "not_run", "blocked_by", "problems"):
        assert merged[key] == whole[key], key
    assert {t["nodeid"]: t["outcome"] for t in merged["tests"]} == {
        t["nodeid"]: t["outcome"] for t in whole["tests"]
    }


@pytest.mark.kit_long(48)
def test_the_reference_in_four_shards_is_the_reference_whole(tmp_path: Path) -> None:
    tools = ["--tools", "grep,glob"]
    run, whole = _whole(tmp_path, tools)
    merged, data = _sharded(tmp_path, tools, 4)
    assert run.returncode == merged.returncode == 0, merged.stderr + run.stdout[-2000:]
    assert whole["summary"]["passed"] > 250
    _same(whole, data)


@pytest.mark.kit_long(60)
def test_a_peer_in_two_shards_is_the_peer_whole(tmp_path: Path) -> None:
    """A peer with real failures, each covered by its expectations file, run strict."""
    need_example(FS_ENTRY, install="npm ci --ignore-scripts in peers/mcp-filesystem")
    args = [
        "--mcp", f"node {FS_ENTRY} {{tmp}}",
        "--mcp-mapping", str(EXAMPLE / "mapping.toml"),
        "--expectations", str(EXAMPLE / "expectations.toml"), "--strict", "--tools", "edit",
    ]  # fmt: skip
    run, whole = _whole(tmp_path, args)
    merged, data = _sharded(tmp_path, args, 2)
    assert run.returncode == merged.returncode == 0, merged.stderr + run.stdout[-2000:]
    assert whole["summary"]["xfailed"] >= 20 and whole["summary"]["skipped"] > 0
    _same(whole, data)
