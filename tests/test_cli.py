"""The agenttools command, run as a user would: a subprocess in an unrelated directory."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_agenttools


def agenttools(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_agenttools(*args, cwd=cwd, timeout=600)


def test_clauses_lists_the_spec(tmp_path: Path) -> None:
    proc = agenttools("clauses", cwd=tmp_path)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert len(lines) >= 40
    assert any(line.startswith("READ-LN-01") and "MUST" in line for line in lines)
    only_write = agenttools("clauses", "--tool", "write", cwd=tmp_path).stdout.splitlines()
    assert only_write and all(line.startswith("WRITE-") for line in only_write)


def test_run_subset_writes_report_and_leaves_cwd_clean(tmp_path: Path) -> None:
    proc = agenttools("run", "--report-json", "r.json", "--", "-k", "missing_file", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "core: MUST 1/1 passed" in proc.stdout, proc.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["passed"] >= 1 and report["summary"]["failed"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"], "the run littered the cwd"


def test_run_fails_on_a_broken_implementation(tmp_path: Path) -> None:
    proc = agenttools(
        "run",
        "--impl",
        "pytest_agenttools.broken.write_drops_bom:create",
        "--",
        "-k",
        "bom_kept",
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "FAIL  WRITE-BOM-01" in proc.stdout


def test_run_with_expectations_exits_zero_when_all_expected(tmp_path: Path) -> None:
    (tmp_path / "exp.toml").write_text(
        '[[xfail]]\nid = "WRITE-BOM-01"\nreason = "this implementation drops the BOM"\n'
    )
    proc = agenttools(
        "run",
        "--impl",
        "pytest_agenttools.broken.write_drops_bom:create",
        "--expectations",
        "exp.toml",
        "--strict",
        "--",
        "-k",
        "bom_kept",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "xfail WRITE-BOM-01" in proc.stdout


@pytest.mark.parametrize("bad", [["run", "--impl", "a:b", "--cmd", "x"], ["frobnicate"]])
def test_bad_usage(tmp_path: Path, bad: list[str]) -> None:
    proc = agenttools(*bad, cwd=tmp_path)
    assert proc.returncode == 2 and "usage" in proc.stderr.lower()


def test_selection_by_tool_and_tag(tmp_path: Path) -> None:
    proc = agenttools(
        "run", "--tools", "write", "--features", "bom", "--report-json", "r.json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report["clauses"]) == {"WRITE-BOM-01"}


def test_baseline_then_strict_run_is_green(tmp_path: Path) -> None:
    first = agenttools(
        "run",
        "--impl",
        "pytest_agenttools.broken.write_drops_bom:create",
        "--tools",
        "write",
        "--features",
        "bom,encoding",
        "--report-json",
        "r.json",
        cwd=tmp_path,
    )
    assert first.returncode == 1
    made = agenttools("baseline", "--report", "r.json", cwd=tmp_path)
    assert made.returncode == 0 and "test_bom_kept_once[plain]" in made.stdout
    (tmp_path / "exp.toml").write_text(made.stdout)
    second = agenttools(
        "run",
        "--impl",
        "pytest_agenttools.broken.write_drops_bom:create",
        "--tools",
        "write",
        "--features",
        "bom,encoding",
        "--expectations",
        "exp.toml",
        "--strict",
        cwd=tmp_path,
    )
    assert second.returncode == 0, second.stdout[-2000:]


def test_report_renders_html_and_markdown(tmp_path: Path) -> None:
    agenttools("run", "--features", "bom", "--report-json", "a.json", cwd=tmp_path)
    agenttools(
        "run",
        "--impl",
        "pytest_agenttools.broken.write_drops_bom:create",
        "--features",
        "bom",
        "--report-json",
        "b.json",
        cwd=tmp_path,
    )
    proc = agenttools(
        "report", "a.json", "b.json", "--html", "out.html", "--markdown", "out.md", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "out.html").read_text()
    assert page.count("<th>agenttools-reference 0.2.0</th>") == 2
    assert 'id="WRITE-BOM-01"' in page and 'class="failed"' in page
    assert "| agenttools-reference 0.2.0 |" in (tmp_path / "out.md").read_text()
    missing = agenttools("report", "nope.json", cwd=tmp_path)
    assert missing.returncode != 0 and "nope.json" in missing.stderr
