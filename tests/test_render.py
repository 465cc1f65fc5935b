"""Reports people look at: the HTML matrix (checked in headless Chromium), Markdown, baselines."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.baseline import render_baseline
from pytest_agenttools.clauses import load
from pytest_agenttools.render import Matrix, to_html, to_markdown

SPEC = load()


def fake_report(name: str, verdicts: dict[str, str]) -> dict[str, Any]:
    """A report in the shape `--agenttools-report` writes, one test per clause."""
    tests = []
    clauses = {}
    for clause in SPEC.active():
        verdict = verdicts.get(clause.id, "passed")
        clauses[clause.id] = verdict
        tests.append(
            {
                "nodeid": f"conformance/test_x.py::test_{clause.id}",
                "id": f"test_x.py::test_{clause.id}",
                "clause": clause.id,
                "outcome": verdict,
                "message": f"boom <{clause.id}>" if verdict != "passed" else "",
            }
        )
    return {
        "implementation": {"name": name, "version": "1.0", "adapter": "stdio adapter `x`"},
        "clauses": clauses,
        "tests": tests,
    }


def sample_reports() -> list[dict[str, Any]]:
    ids = [c.id for c in SPEC.active()]
    musts = [c.id for c in SPEC.active() if c.level == "MUST"]
    return [
        fake_report("alpha", {}),
        fake_report(
            "beta", {musts[0]: "failed", musts[1]: "xfailed", ids[2]: "skipped", ids[-1]: "skipped"}
        ),
    ]


def expected_scores(report: dict[str, Any]) -> tuple[int, int, int, int]:
    out = []
    for level in ("MUST", "SHOULD"):
        ids = [c.id for c in SPEC.active() if c.level == level]
        verdicts = [report["clauses"][i] for i in ids]
        out += [sum(v == "passed" for v in verdicts), sum(v != "skipped" for v in verdicts)]
    return out[0], out[1], out[2], out[3]


def test_scores_follow_the_verdicts() -> None:
    reports = sample_reports()
    matrix = Matrix.from_reports(SPEC, reports)
    for score, report in zip(matrix.scores(), reports, strict=True):
        assert (
            score["must_passed"],
            score["must_applicable"],
            score["should_passed"],
            score["should_applicable"],
        ) == expected_scores(report)


def test_html_is_self_contained_and_escapes() -> None:
    page = to_html(Matrix.from_reports(SPEC, sample_reports()))
    assert "<script src" not in page and "<link" not in page and "http://" not in page
    assert "boom &lt;" in page and "boom <" not in page, "messages must be escaped"
    assert page.count('class="clause"') == len(SPEC.active())


def test_markdown_lists_failures() -> None:
    text = to_markdown(Matrix.from_reports(SPEC, sample_reports()))
    assert "| alpha 1.0 (stdio) |" in text and "**FAIL**" in text and "xfail" in text


def test_baseline_round_trips_through_toml() -> None:
    report = sample_reports()[1]
    parsed = tomllib.loads(render_baseline(report))
    ids = {e["id"] for e in parsed["xfail"]}
    failing = {c for c, v in report["clauses"].items() if v == "failed"}
    assert ids == failing
    assert all(e["reason"].startswith("TODO") for e in parsed["xfail"])


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        if os.environ.get("AGENTTOOLS_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    return found


def browser(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    base = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)


def test_html_in_a_real_browser(tmp_path: Path) -> None:
    reports = sample_reports()
    page = tmp_path / "report.html"
    page.write_text(to_html(Matrix.from_reports(SPEC, reports)), encoding="utf-8")
    dom = browser("--dump-dom", page.as_uri(), profile=tmp_path / "p1").stdout
    assert 'class="matrix"' in dom, "the page did not render"
    musts = re.findall(r'<td class="must">(\d+) / (\d+)</td>', dom)
    shoulds = re.findall(r'<td class="should">(\d+) / (\d+)</td>', dom)
    for report, must, should in zip(reports, musts, shoulds, strict=True):
        assert (int(must[0]), int(must[1]), int(should[0]), int(should[1])) == (
            expected_scores(report)
        )
    shown_all = re.search(r'<span id="shown">(\d+)</span>', dom)
    assert shown_all and int(shown_all.group(1)) == len(SPEC.active())
    filtered = browser("--dump-dom", page.as_uri() + "#tool=write", profile=tmp_path / "p2").stdout
    count = re.search(r'<span id="shown">(\d+)</span>', filtered)
    assert count and int(count.group(1)) == sum(c.tool == "write" for c in SPEC.active())
    hidden = re.findall(
        r'<tr class="clause" id="([^"]+)" data-tool="(\w+)"[^>]*'
        r'style="display: none;"',
        filtered,
    )
    assert hidden and all(tool != "write" for _, tool in hidden)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_screenshot_of_the_matrix(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(to_html(Matrix.from_reports(SPEC, sample_reports())), encoding="utf-8")
    shot = tmp_path / "matrix.png"
    browser(
        f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri(), profile=tmp_path / "p3"
    )
    assert shot.exists(), "no screenshot was taken"
    assert png_size(shot) == (1400, 1000)
    assert shot.stat().st_size > 20_000, "the screenshot looks blank"
    keep = os.environ.get("AGENTTOOLS_SCREENSHOT_DIR")
    if keep:
        shutil.copyfile(shot, Path(keep) / "matrix.png")


def test_json_of_scores_is_embedded() -> None:
    page = to_html(Matrix.from_reports(SPEC, sample_reports()))
    found = re.search(r'id="agenttools-scores">(.*?)</script>', page)
    assert found
    import html as html_module

    scores = json.loads(html_module.unescape(found.group(1)))
    assert [s["implementation"] for s in scores] == ["alpha 1.0 (stdio)", "beta 1.0 (stdio)"]
    assert sys.version_info >= (3, 11)
