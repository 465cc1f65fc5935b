"""End to end, as a user runs it: the reference in-process and over stdio, pi through its Node
adapter with its expectations file, and one HTML page comparing them, checked in Chromium.

The pipeline, not the suite: each run takes a few clauses (``CLAUSES``), among them a text
clause pi passes, one pi is expected to fail and a stdio-only one the in-process run cannot
judge. The whole suite runs elsewhere: against the reference presented as other tools present
it, in process and over stdio (tests/implementations/test_alternatives.py), and against pi
(tests/peers/test_pi.py).

pi needs ``npm ci --ignore-scripts`` in ``peers/pi`` (``.ci/run`` does it). Without it the pi
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

from pytest_agenttools.spec.clauses import load as load_spec
from tests.report.test_render import browser, png_size
from tests.support import REPO, run_agenttools

PI = REPO / "peers" / "pi"


agenttools = run_agenttools


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def pi_installed() -> bool:
    installed = (PI / "node_modules" / "@mariozechner" / "pi-coding-agent").is_dir()
    if installed and shutil.which("node"):
        return True
    if os.environ.get("AGENTTOOLS_REQUIRE_PI") == "1":
        pytest.fail("pi is not installed: run `npm ci --ignore-scripts` in peers/pi")
    return False


#: READ-TEXT-01 pi passes, READ-BOM-01 pi fails as its expectations say (it shows the BOM),
#: ROBUST-LINE-01 judges raw protocol lines: only a stdio run can
CLAUSES = ("READ-TEXT-01", "READ-BOM-01", "ROBUST-LINE-01")


def pi_expectations(tests: dict[str, str], path: Path) -> None:
    """pi's entries for the tests of ``CLAUSES`` (``tests``: test id to clause id), as a file."""
    data = tomllib.loads((PI / "expectations.toml").read_text())
    path.write_text(
        "".join(
            f"[[{kind}]]\nid = {json.dumps(e['id'])}\nreason = {json.dumps(e['reason'])}\n\n"
            for kind in ("xfail", "skip")
            for e in data.get(kind, [])
            if e["id"] in CLAUSES or tests.get(e["id"]) in CLAUSES
        )
    )


@pytest.mark.kit_long(35)
def test_reference_both_adapters_pi_and_the_comparison_page(tmp_path: Path) -> None:
    chosen = ("--", "--agenttools-clauses", ",".join(CLAUSES))
    first = agenttools("run", "--report-json", "ref.json", *chosen, cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-3000:]
    second = agenttools(
        "run", "--cmd", "agenttools serve", "--report-json", "ref-stdio.json", *chosen, cwd=tmp_path
    )
    assert second.returncode == 0, second.stdout[-3000:]
    ref, ref_stdio = load(tmp_path / "ref.json"), load(tmp_path / "ref-stdio.json")
    assert ref["summary"]["failed"] == 0 and ref["summary"]["error"] == 0
    assert {t["clause"] for t in ref_stdio["tests"]} == set(CLAUSES)
    assert ref_stdio["summary"]["passed"] == len(ref_stdio["tests"])
    stdio_only = {c.id for c in load_spec().clauses if c.transports == ("stdio",)}
    expected = {
        t["id"]: "skipped" if t["clause"] in stdio_only else t["outcome"]
        for t in ref_stdio["tests"]
    }
    assert {t["id"]: t["outcome"] for t in ref["tests"]} == expected, (
        "in-process and stdio runs of the reference differ beyond the stdio-only clauses"
    )
    assert "ROBUST-LINE-01" in stdio_only
    assert "stdio adapter" in ref_stdio["implementation"]["adapter"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ref-stdio.json", "ref.json"], (
        "a run littered its working directory"
    )
    if not pi_installed():
        pytest.skip("pi is not installed (npm ci --ignore-scripts in peers/pi)")

    pi_expectations({t["id"]: t["clause"] for t in ref_stdio["tests"]}, tmp_path / "pi.toml")
    run = agenttools(
        "run",
        "--cmd",
        f"node {PI / 'server.mjs'}",
        "--expectations",
        "pi.toml",
        "--strict",
        "--report-json",
        "pi.json",
        *chosen,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout[-4000:]
    pi = load(tmp_path / "pi.json")
    assert pi["implementation"]["name"] == "pi"
    summary = pi["summary"]
    assert summary["failed"] == 0 and summary["error"] == 0 and summary["xpassed"] == 0
    assert summary["xfailed"] >= 1 and summary["passed"] >= 5
    assert pi["expectations"]["stale"] == [] and pi["expectations"]["unmatched"] == []

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
