"""The plugin loads in every pytest run of its environment: it must leave unrelated runs alone.

Here in the kit's own environment the run "without the kit" is the same run with
``-p no:agenttools``, which isolates the plugin's own effect; ``test_install.py`` compares
against an environment where the kit was never installed. Also here: the suite runs by path,
the suite's helpers are assertion-rewritten, and ``agenttools run`` prints no warning.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_agenttools.spec.clauses import suite_dir
from tests import plain_project
from tests.support import REPO, run_agenttools

pytest_plugins = ["pytester"]

PYTEST = shutil.which("pytest", path=os.path.dirname(sys.executable)) or "pytest"
CHECKOUT = REPO


def _pytest(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """This venv's pytest in ``cwd``, outside the calling run (no ``PYTEST_*`` variables)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [PYTEST, "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


# (arguments, whether the run's lines come in a fixed order)
RUNS = {
    "default": (["-rA"], True),
    "verbose-strict": (
        ["-v", "-rA", "--strict-markers", "--strict-config", "-W", "error::pytest.PytestWarning"],
        True,
    ),
    "no-xdist": (["-p", "no:xdist", "-rA"], True),
    "xdist": (["-n", "2", "-rA"], False),
    # the kit widens -n auto for its own suite only (pytest_agenttools.run.parallel)
    "xdist-auto": (["-n", "auto", "-rA"], False),
}


@pytest.mark.parametrize("name", list(RUNS))
@pytest.mark.kit_long(76)
def test_unrelated_run_is_unchanged_by_the_plugin(tmp_path: Path, name: str) -> None:
    args, ordered = RUNS[name]
    without = plain_project.run(PYTEST, ["-p", "no:agenttools", *args], tmp_path / "without")
    assert without.exit_code == plain_project.EXIT_CODE, without.output
    assert plain_project.outcome(without.output) == plain_project.OUTCOME, without.output
    with_kit = plain_project.run(PYTEST, args, tmp_path / "with")
    assert "agenttools-" in with_kit.output, "the plugin is not in the run's plugin list"
    assert "agenttools-" not in without.output
    assert without.differences(with_kit, ordered=ordered) == []


MODULES_TEST = """
import json, os, sys

def test_dump():
    with open(os.environ["MODULES_OUT"], "w") as out:
        json.dump(sorted(sys.modules), out)
"""


def _modules(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / f"modules{len(args)}.json"
    (tmp_path / "test_modules.py").write_text(MODULES_TEST)
    proc = _pytest(["-q", *args], tmp_path, {"MODULES_OUT": str(out)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return set(json.loads(out.read_text()))


@pytest.mark.kit_long(49)
def test_plugin_imports_only_its_own_modules_and_the_standard_library(tmp_path: Path) -> None:
    added = _modules(tmp_path) - _modules(tmp_path, "-p", "no:agenttools")
    assert "pytest_agenttools.plugin" in added, "the plugin did not load at all"
    foreign = sorted(
        name
        for name in added
        if name.split(".")[0] not in sys.stdlib_module_names
        and name.split(".")[0] != "pytest_agenttools"
    )
    assert foreign == [], f"an unrelated run imports {foreign} because of the plugin"
    assert "pytest_agenttools.implementations.reference" not in added


@pytest.mark.parametrize(("where", "xdist"), [("elsewhere", "-p no:xdist"), ("checkout", "-n 2")])
@pytest.mark.kit_long(32)
def test_suite_runs_by_path(tmp_path: Path, where: str, xdist: str) -> None:
    """``pytest .../conformance/test_read.py``: its conftest reads the session in its own
    ``pytest_configure``, which runs before the plugin's unless the plugin goes first. Run from
    a scratch directory and from the checkout's root, where the src layout keeps the source
    tree from standing in for the installed suite (with an editable install they are one)."""
    target = str(suite_dir() / "test_read.py")
    proc = _pytest(["-q", *xdist.split(), target], tmp_path if where == "elsewhere" else CHECKOUT)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "INTERNALERROR" not in output
    outcome = plain_project.outcome(output) or ""
    assert outcome.endswith("passed") and "warning" not in outcome, output


HELPER_TEST = """
from pytest_agenttools.harness.assertions import expect_ok
from pytest_agenttools.harness.contract import ToolResult

def test_helper_fails():
    expect_ok(ToolResult(({"type": "text", "text": "boom"},), is_error=True))
"""


@pytest.mark.parametrize("autoload", [True, False], ids=["entry-point", "autoload-off"])
def test_suite_helpers_are_assertion_rewritten(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, autoload: bool
) -> None:
    """A failing helper assertion shows pytest's introspection (``where True = ...``), also in
    an editable install and with plugin autoloading off (``-p pytest_agenttools.plugin``)."""
    pytester.makepyfile(HELPER_TEST)
    args = ["-p", "no:cacheprovider"]
    if not autoload:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        args += ["-p", "pytest_agenttools.plugin"]
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*where True = ToolResult(*).is_error*"])
    assert "PytestAssertRewriteWarning" not in result.stdout.str() + result.stderr.str()


def test_cli_run_without_xdist_prints_no_warning(tmp_path: Path) -> None:
    """``agenttools run`` imports the package before pytest starts; pytest must not warn that
    it cannot rewrite it, and with xdist disabled the plugin's xdist hook must not matter."""
    # two modules of the read suite: the warning would come at import, whatever the selection
    proc = run_agenttools(
        "run", "--clauses", "READ-LN-01,READ-NF-01", "--report-json", "r.json",
        "--", "-p", "no:xdist", cwd=tmp_path,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "PytestAssertRewriteWarning" not in output
    assert "warning" not in (plain_project.outcome(output) or "warning"), output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["passed"] > 0
    assert report["summary"]["failed"] == report["summary"]["error"] == 0


def test_suite_collect_only_exits_zero(tmp_path: Path) -> None:
    """syrupy counts every golden unused when no test runs; collecting must still pass."""
    proc = _pytest(["--pyargs", "pytest_agenttools.conformance", "--collect-only", "-q"], tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "tests collected" in proc.stdout
    assert "--snapshot-update" not in proc.stdout, "no advice to delete the kit's goldens"


@pytest.mark.kit_long(44)
def test_collect_only_of_a_snapshot_project_is_left_alone(tmp_path: Path) -> None:
    """The kit quiets syrupy's unused-golden check for its own goldens only."""
    (tmp_path / "test_snap.py").write_text("def test_a(snapshot):\n    assert 1 == snapshot\n")
    assert _pytest(["--snapshot-update"], tmp_path).returncode == 0
    without = _pytest(["--collect-only", "-p", "no:agenttools"], tmp_path)
    with_kit = _pytest(["--collect-only"], tmp_path)
    assert with_kit.returncode == without.returncode
    assert plain_project.normalized(with_kit.stdout) == plain_project.normalized(without.stdout)
