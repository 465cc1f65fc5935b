"""The pytest plugin: options, markers, skipping, expectations, reports, xdist, import cost."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_agenttools.spec.clauses import suite_dir

pytest_plugins = ["pytester"]

CLIENT_TESTS = """
from pytest_agenttools.harness.markers import clause, feature

@clause("READ-NF-01")
def test_passes(agenttools_client):
    assert agenttools_client.read(path="missing.txt").is_error

@clause("READ-DIR-01")
def test_fails(agenttools_client):
    assert not agenttools_client.read(path=".").is_error

@clause("READ-PDF-01")
def test_needs_pdf(agenttools_client):
    pass

@feature("read.teleport")
def test_needs_unknown_feature(agenttools_client):
    pass

def test_plain():
    pass
"""


def report_of(path: Path) -> dict:
    return json.loads(path.read_text())


def test_options_and_ini_twins_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    for flag in (
        "--agenttools-impl",
        "--agenttools-cmd",
        "--agenttools-manifest",
        "--agenttools-expectations",
        "--agenttools-report",
        "--agenttools-strict",
    ):
        result.stdout.fnmatch_lines([f"*{flag}*"])
    result.stdout.fnmatch_lines(["*agenttools_impl*", "*agenttools_report*"])


def test_markers_are_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.agenttools_clause*", "@pytest.mark.agenttools_feature*"]
    )


def test_plugin_import_is_light(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin loads nothing heavy into a run that does not use it. Other installed plugins
    may load what they like, so they are kept out: the plugin alone against no plugin."""
    pytester.makepyfile(
        """
        import sys
        def test_record_heavy_modules(request):
            names = ("pytest_agenttools.implementations.reference", "pypdf", "nbformat", "psutil",
                     "hypothesis", "mcp")
            heavy = [m for m in names if m in sys.modules]
            mine = "pytest_agenttools.plugin" in sys.modules
            (request.config.rootpath / ("with.txt" if mine else "without.txt")).write_text(
                " ".join(heavy)
            )
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    args = ("-p", "no:cacheprovider")
    pytester.runpytest_subprocess(*args, "-p", "pytest_agenttools.plugin").assert_outcomes(passed=1)
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
    loaded = set((pytester.path / "with.txt").read_text().split())
    baseline = set((pytester.path / "without.txt").read_text().split())
    assert loaded - baseline == set(), f"the plugin loads {sorted(loaded - baseline)}"


def test_undeclared_tool_and_feature_are_skipped_with_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    manifest = pytester.makefile(".toml", manifest="features = []\n")
    result = pytester.runpytest("-rs", f"--agenttools-manifest={manifest}")
    result.assert_outcomes(passed=2, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*feature read.pdf not declared by agenttools-reference*",
            "*feature read.teleport not declared by agenttools-reference*",
        ]
    )


def test_json_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    out = pytester.path / "r.json"
    pytester.runpytest(f"--agenttools-report={out}")
    report = report_of(out)
    assert report["implementation"]["name"] == "agenttools-reference"
    assert report["implementation"]["version"]
    assert report["summary"] == {
        "passed": 3,
        "failed": 1,
        "blocked": 0,
        "skipped": 1,
        "xfailed": 0,
        "xpassed": 0,
        "error": 0,
    }
    by_clause = {t["clause"]: t["outcome"] for t in report["tests"] if t["clause"]}
    assert by_clause == {"READ-NF-01": "passed", "READ-DIR-01": "failed", "READ-PDF-01": "passed"}
    assert report["clauses"]["READ-DIR-01"] == "failed"
    failing = next(t for t in report["tests"] if t["outcome"] == "failed")
    assert "assert not" in failing["message"]


@pytest.mark.kit_long(31)
def test_json_report_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    out = pytester.path / "r.json"
    result = pytester.runpytest_subprocess(
        "-n", "2", f"--agenttools-report={out}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    report = report_of(out)
    assert report["implementation"]["name"] == "agenttools-reference"
    assert len(report["tests"]) == 5


EXPECTATIONS = """
[[xfail]]
id = "READ-DIR-01"
reason = "this implementation lists directories"

[[xfail]]
id = "test_expect.py::test_passes"
reason = "was broken once"

[[skip]]
id = "NO-SUCH-CLAUSE"
reason = "matches nothing"
"""


def test_expectations_applied_and_judged(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_expect=CLIENT_TESTS)
    expectations = pytester.makefile(".toml", expect=EXPECTATIONS)
    path = pytester.path / "r.json"
    result = pytester.runpytest(
        f"--agenttools-expectations={expectations}", f"--agenttools-report={path}"
    )
    result.assert_outcomes(passed=2, xfailed=1, xpassed=1, skipped=1)
    assert result.ret == 0, "non-strict: stale and unmatched entries are reported, not fatal"
    out = result.stdout.str()
    assert "stale expectation [[xfail]] #2 id='test_expect.py::test_passes'" in out
    assert "delete the entry" in out
    assert "unmatched expectation [[skip]] #1 id='NO-SUCH-CLAUSE'" in out
    report = report_of(path)
    assert report["expectations"]["stale"] == ["test_expect.py::test_passes"]
    assert report["expectations"]["unmatched"] == ["NO-SUCH-CLAUSE"]


def test_strict_expectations_fail_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_expect=CLIENT_TESTS)
    expectations = pytester.makefile(".toml", expect=EXPECTATIONS)
    result = pytester.runpytest(f"--agenttools-expectations={expectations}", "--agenttools-strict")
    assert result.ret == 1


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_entries_of_deselected_tests_are_neither_unmatched_nor_stale(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    """One expectations file for every tool, a run of some of them (``--tools``, ``-k``)."""
    pytester.makepyfile(test_expect=CLIENT_TESTS)
    expectations = pytester.makefile(
        ".toml",
        expect='[[xfail]]\nid = "READ-DIR-01"\nreason = "this implementation lists directories"\n'
        '[[skip]]\nid = "NO-SUCH-CLAUSE"\nreason = "matches nothing"\n',
    )
    path = pytester.path / "r.json"
    result = pytester.runpytest_subprocess(
        *workers,
        "-k",
        "not test_fails",
        f"--agenttools-expectations={expectations}",
        f"--agenttools-report={path}",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=3, skipped=1)
    summary = report_of(path)["expectations"]
    assert summary["unmatched"] == ["NO-SUCH-CLAUSE"], "a typo is still unmatched"
    assert summary["stale"] == []


def test_expectation_without_reason_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    bad = pytester.makefile(".toml", bad='[[xfail]]\nid = "READ-DIR-01"\n')
    result = pytester.runpytest(f"--agenttools-expectations={bad}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*needs a reason*"])


def test_impl_and_cmd_together_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--agenttools-impl=a:b", "--agenttools-cmd=x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*choose one implementation*"])


def test_unloadable_impl_fails_tests_with_a_clear_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    result = pytester.runpytest("--agenttools-impl=no_such_module_xyz:create")
    result.assert_outcomes(passed=1, errors=4)
    result.stdout.fnmatch_lines(["*could not be started*cannot import 'no_such_module_xyz'*"])


def test_ini_twin_is_used(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    pytester.makeini("[pytest]\nagenttools_impl = no_such_module_xyz:create\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*no_such_module_xyz*"])


def test_snapshot_update_never_writes_into_site_packages(pytester: pytest.Pytester) -> None:
    if not re.search(r"(site|dist)-packages", str(suite_dir())):
        pytest.skip("the kit is not installed into site-packages here (editable install)")
    result = pytester.runpytest_subprocess(
        "--pyargs",
        "pytest_agenttools.conformance",
        "-k",
        "golden",
        "--snapshot-update",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret != 0
    assert "--agenttools-golden-dir" in result.stdout.str() + result.stderr.str()


def test_terminal_section_shows_the_levels_and_can_be_left_out(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    result = pytester.runpytest()
    out = result.stdout.str()
    assert "agenttools conformance" in out
    (core,) = [line for line in out.splitlines() if line.split()[:1] == ["core"]]
    must, passed, failed, xfailed, blocked, not_run = (int(n) for n in core.split()[1:7])
    assert (passed, failed, xfailed, blocked) == (1, 0, 0, 0) and not_run == must - 1
    assert re.search(r"not run: \d+ clauses .*: not selected by this run \(tests ", out)
    assert re.search(r"^  FAIL  READ-DIR-01 .*\(1 test: 1 failed\)$", out, re.M)
    quiet = pytester.runpytest("-p", "no:agenttools-summary")
    assert "agenttools conformance" not in quiet.stdout.str()
    quiet.assert_outcomes(passed=3, failed=1, skipped=1)


def test_report_records_the_failing_assertion(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    out = pytester.path / "r.json"
    pytester.runpytest(f"--agenttools-report={out}")
    report = report_of(out)
    failing = next(t for t in report["tests"] if t["outcome"] == "failed")
    assert failing["assertion"].startswith("assert not ")
    assert failing["message"].index(failing["assertion"].splitlines()[0]) > 0
    assert "\n" not in report["started"] and report["started"].endswith("Z")
    not_run = report["not_run"]
    assert "READ-NF-01" not in not_run and "READ-EOL-01" in not_run
    assert all(reason for reason in not_run.values())
    assert report["levels"]["core"]["MUST"]["passed"] == 1


def test_strict_refuses_todo_reasons(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    todo = pytester.makefile(
        ".toml",
        todo='[[xfail]]\nid = "READ-DIR-01"\nreason = "TODO: say which behaviour breaks this"\n',
    )
    result = pytester.runpytest(f"--agenttools-expectations={todo}", "--agenttools-strict")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*refuses 1 entry whose reason still says TODO*id='READ-DIR-01'*"])
    lenient = pytester.runpytest(f"--agenttools-expectations={todo}")
    lenient.assert_outcomes(passed=3, xfailed=1, skipped=1)


@pytest.mark.kit_long(31)
def test_an_entry_for_a_tool_the_run_left_out_is_not_unmatched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLIENT_TESTS)
    entries = pytester.makefile(
        ".toml",
        exp='[[xfail]]\nid = "READ-DIR-01"\nreason = "this implementation lists directories"\n'
        '[[xfail]]\nid = "NO-SUCH-CLAUSE"\nreason = "matches nothing at all"\n',
    )
    result = pytester.runpytest(
        "--agenttools-tools=write", f"--agenttools-expectations={entries}", "--agenttools-strict"
    )
    result.assert_outcomes(passed=1, skipped=1, deselected=3)
    out = result.stdout.str()
    assert "id='READ-DIR-01'" not in out, "an entry of a tool left out by --tools is not wrong"
    assert "unmatched expectation [[xfail]] #2 id='NO-SUCH-CLAUSE'" in out
    assert result.ret == 1
    by_keyword = pytester.runpytest_subprocess(
        "-n", "2", "-k", "plain", f"--agenttools-expectations={entries}", "-p", "no:cacheprovider"
    )
    by_keyword.assert_outcomes(passed=1)
    out = by_keyword.stdout.str()
    assert "id='READ-DIR-01'" not in out and "id='NO-SUCH-CLAUSE'" in out
