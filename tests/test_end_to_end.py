"""End to end, as a user runs it: the reference in-process and over stdio, pi through its Node
adapter with its expectations file, and one HTML page comparing them, checked in Chromium.

pi needs ``npm ci --ignore-scripts`` in ``adapters/pi`` (``.ci/run`` does it). Without it the pi
part is skipped, unless AGENTTOOLS_REQUIRE_PI=1 (set in CI) makes the absence a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import run_agenttools
from test_render import browser, png_size

PI = Path(__file__).parent.parent / "adapters" / "pi"


agenttools = run_agenttools


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def pi_installed() -> bool:
    installed = (PI / "node_modules" / "@mariozechner" / "pi-coding-agent").is_dir()
    if installed and shutil.which("node"):
        return True
    if os.environ.get("AGENTTOOLS_REQUIRE_PI") == "1":
        pytest.fail("pi is not installed: run `npm ci --ignore-scripts` in adapters/pi")
    return False


def test_reference_both_adapters_pi_and_the_comparison_page(tmp_path: Path) -> None:
    first = agenttools("run", "--report-json", "ref.json", "--", "-n", "2", cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-3000:]
    second = agenttools(
        "run",
        "--cmd",
        "agenttools serve",
        "--report-json",
        "ref-stdio.json",
        "--",
        "-n",
        "2",
        cwd=tmp_path,
    )
    assert second.returncode == 0, second.stdout[-3000:]
    ref, ref_stdio = load(tmp_path / "ref.json"), load(tmp_path / "ref-stdio.json")
    assert ref["summary"]["failed"] == 0 and ref["summary"]["error"] == 0
    assert ref["summary"]["passed"] >= 400
    outcomes = {t["id"]: t["outcome"] for t in ref["tests"]}
    assert outcomes == {t["id"]: t["outcome"] for t in ref_stdio["tests"]}, (
        "in-process and stdio runs of the reference differ"
    )
    assert "stdio adapter" in ref_stdio["implementation"]["adapter"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ref-stdio.json", "ref.json"], (
        "a run littered its working directory"
    )
    if not pi_installed():
        pytest.skip("pi is not installed (npm ci --ignore-scripts in adapters/pi)")

    expectations = PI / "expectations.toml"
    run = agenttools(
        "run",
        "--cmd",
        f"node {PI / 'server.mjs'}",
        "--expectations",
        str(expectations),
        "--strict",
        "--report-json",
        "pi.json",
        "--",
        "-n",
        "2",
        cwd=tmp_path,
    )
    pi = load(tmp_path / "pi.json")
    assert run.returncode == 0, run.stdout[-4000:]
    assert pi["implementation"]["name"] == "pi"
    summary = pi["summary"]
    assert summary["failed"] == 0 and summary["error"] == 0 and summary["xpassed"] == 0
    assert summary["xfailed"] >= 50, "pi's real deviations show up as expected failures"
    assert pi["expectations"]["stale"] == [] and pi["expectations"]["unmatched"] == []
    entries = tomllib.loads(expectations.read_text())
    for entry in entries["xfail"] + entries["skip"]:
        assert len(entry["reason"]) > 20, f"{entry['id']}: say which pi behaviour breaks it"
    manifest = tomllib.loads((PI / "manifest.toml").read_text())
    assert set(manifest["tools"]) == set(pi["implementation"]["manifest"]["tools"])
    assert set(manifest["features"]) == set(pi["implementation"]["manifest"]["features"])

    page = tmp_path / "compare.html"
    shown = agenttools("report", "ref.json", "pi.json", "--html", str(page), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    dom = browser("--dump-dom", page.as_uri(), profile=tmp_path / "profile").stdout
    heads = re.findall(r'<th data-run="\d+">(.*?)<br><span class="run">(.*?)</span></th>', dom)
    assert heads[:2] == [
        (f"agenttools-reference {ref['implementation']['version']}", heads[0][1]),
        ("pi 0.73.1", heads[1][1]),
    ]
    assert heads[0][1].startswith("in-process · ref.json · ")
    assert heads[1][1].startswith("stdio · pi.json · ")
    assert 'data-verdict="xfailed"' in dom and 'data-verdict="passed"' in dom
    shot = tmp_path / "compare.png"
    browser(
        f"--screenshot={shot}",
        "--window-size=1400,1000",
        page.as_uri(),
        profile=tmp_path / "profile2",
    )
    assert png_size(shot) == (1400, 1000) and shot.stat().st_size > 20_000
    keep = os.environ.get("AGENTTOOLS_SCREENSHOT_DIR")
    if keep:
        shutil.copyfile(shot, Path(keep) / "compare.png")
