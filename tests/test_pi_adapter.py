"""A real second implementation: pi 0.73.1 through its Node stdio adapter, with its expectations.

Needs ``npm install --ignore-scripts`` in ``adapters/pi`` (``.ci/run`` does it). Without it the
test is skipped, unless AGENTTOOLS_REQUIRE_PI=1 (set in CI) makes the absence a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PI = Path(__file__).parent.parent / "adapters" / "pi"


def test_pi_deviations_are_exactly_the_expected_ones(tmp_path: Path) -> None:
    installed = (PI / "node_modules" / "@mariozechner" / "pi-coding-agent").is_dir()
    if not installed or not shutil.which("node"):
        if os.environ.get("AGENTTOOLS_REQUIRE_PI") == "1":
            pytest.fail("pi is not installed: run `npm install --ignore-scripts` in adapters/pi")
        pytest.skip("pi is not installed (npm install --ignore-scripts in adapters/pi)")
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    expectations = PI / "expectations.toml"
    proc = subprocess.run(
        [
            exe,
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
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads((tmp_path / "pi.json").read_text())
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert report["implementation"]["name"] == "pi"
    summary = report["summary"]
    assert summary["failed"] == 0 and summary["error"] == 0 and summary["xpassed"] == 0
    assert summary["xfailed"] >= 10, "pi's real deviations must show up as expected failures"
    assert report["expectations"]["stale"] == [] and report["expectations"]["unmatched"] == []
    entries = tomllib.loads(expectations.read_text())
    for entry in entries["xfail"] + entries["skip"]:
        assert len(entry["reason"]) > 20, f"{entry['id']}: say which pi behaviour breaks it"
