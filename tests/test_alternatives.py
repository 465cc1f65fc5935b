"""Alternative correct implementations pass every clause of the tool they restyle.

Each style (``pytest_agenttools.alternatives``) is the reference behind another real tool's
presentation and dialect; a clause one of them fails judges the reference's layout, not
behaviour. One run per (style, tool): only that tool's suite modules, in a child pytest as
``agenttools selfcheck`` runs them, so a failure names the clause and the style. A couple of
pairs run over stdio too, so the styles survive the wire.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_agenttools.alternatives import STYLES
from pytest_agenttools.clauses import suite_dir

#: the suite modules of each tool whose clauses judge observations (add yours when it does)
TOOL_MODULES = {"read": ("test_read", "test_read_paging", "test_read_formats")}
OVER_STDIO = (("header_first", "read"), ("renamed_arguments", "read"))


def _run(style: str, tool: str, tmp_path: Path, *how: str) -> dict[str, object]:
    root = str(suite_dir())
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        *(f"pytest_agenttools.conformance.{m}" for m in TOOL_MODULES[tool]),
        "--rootdir",
        root,
        "-c",
        os.path.join(root, "pytest.ini"),
        "-p",
        "no:cacheprovider",
        "-q",
        *how,
        "--agenttools-report",
        "r.json",
    ]
    env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=str(tmp_path / "hypothesis"))
    proc = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    report = json.loads((tmp_path / "r.json").read_text())
    failing = sorted(
        c for c, verdict in report["clauses"].items() if verdict in ("failed", "error")
    )
    assert proc.returncode == 0 and not failing, (
        f"alternative {style} fails {tool} clauses {failing}: a clause that judges layout, "
        f"wording or dialect instead of behaviour\n{proc.stdout[-3000:]}{proc.stderr[-1000:]}"
    )
    summary = report["summary"]
    assert isinstance(summary, dict) and summary["passed"] > 0, summary
    return report


@pytest.mark.parametrize("tool", sorted(TOOL_MODULES))
@pytest.mark.parametrize("style", sorted(STYLES))
def test_alternative_passes_in_process(style: str, tool: str, tmp_path: Path) -> None:
    _run(style, tool, tmp_path, f"--agenttools-impl=pytest_agenttools.alternatives:{style}")


@pytest.mark.parametrize(("style", "tool"), OVER_STDIO)
def test_alternative_passes_over_stdio(style: str, tool: str, tmp_path: Path) -> None:
    command = f"agenttools serve --impl pytest_agenttools.alternatives:{style}"
    _run(style, tool, tmp_path, f"--agenttools-cmd={command}")
