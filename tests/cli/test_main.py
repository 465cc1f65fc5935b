"""The agenttools command, run as a user would: a subprocess in an unrelated directory.

Runs of the suite select a handful of read tests (``--tools read -k ...``): the point is the
command around the suite, not the suite.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pytest_agenttools.spec.clauses import load
from tests.report.test_render import make_report
from tests.support import run_agenttools

SPEC = load()
BROKEN_EOL = "pytest_agenttools.implementations.broken.read_universal_newlines:create"
EOL_TESTS = "lone_cr or mixed_endings or bom_not_shown"


def agenttools(
    *args: str, cwd: Path, env: dict[str, str] | None = None, spread: bool = False
) -> subprocess.CompletedProcess[str]:
    return run_agenttools(*args, cwd=cwd, timeout=600, env=env, spread=spread)


def final_summary(stdout: str) -> list[str]:
    """The lines of the summary ``agenttools run`` prints last (a run with failures prints it
    before pytest's failure details too)."""
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("agenttools: ")]
    return lines[starts[-1] :] if starts else lines


def level_row(stdout: str, level: str) -> list[int]:
    """The numbers of one level's row in the run summary: MUST total, passed, failed,
    xfailed, blocked, not run, then the same for SHOULD."""
    (row,) = [line for line in final_summary(stdout) if line.split()[:1] == [level]]
    return [int(n) for n in row.split()[1:]]


def clause_lines(stdout: str, clause: str) -> list[str]:
    """The summary lines of one clause (its verdict first, then its id)."""
    return [line for line in final_summary(stdout) if line.split()[1:2] == [clause]]


def test_clauses_lists_the_active_spec(tmp_path: Path) -> None:
    proc = agenttools("clauses", cwd=tmp_path)
    assert proc.returncode == 0
    *lines, note = proc.stdout.splitlines()
    retired = len(SPEC.clauses) - len(SPEC.active())
    assert len(lines) == len(SPEC.active()) and not any("(retired)" in line for line in lines)
    assert note == f"({retired} retired clauses left out: --retired lists them too)"
    assert any(line.startswith("READ-LN-01") and "MUST" in line for line in lines)
    every = agenttools("clauses", "--retired", cwd=tmp_path).stdout.splitlines()
    assert len(every) == len(SPEC.clauses) and sum("(retired)" in line for line in every) == retired
    only_write = agenttools("clauses", "--tool", "write", cwd=tmp_path).stdout.splitlines()
    assert only_write and all(line.startswith(("WRITE-", "(")) for line in only_write)


def test_clauses_markdown_honours_tool(tmp_path: Path) -> None:
    proc = agenttools("clauses", "--markdown", "--tool", "write", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    headings = re.findall(r"^### ([A-Z]+)-", proc.stdout, re.M)
    assert headings and set(headings) == {"WRITE"}
    assert re.findall(r"^## (\w+)$", proc.stdout, re.M) == ["write"]
    assert "`read.max_lines`" not in proc.stdout, "another tool's limits leaked in"


@pytest.mark.parametrize(
    "command", [["clauses", "--tool", "nosuch"], ["run", "--tools", "read,nosuch"]]
)
def test_unknown_tool_is_an_error_that_lists_the_tools(tmp_path: Path, command: list[str]) -> None:
    proc = agenttools(*command, cwd=tmp_path)
    assert proc.returncode == 2
    assert "nosuch" in proc.stderr
    assert all(tool in proc.stderr for tool in ("read", "write", "edit", "grep", "glob", "bash"))


def test_unknown_feature_is_an_error(tmp_path: Path) -> None:
    proc = agenttools("run", "--features", "bomm", cwd=tmp_path)
    assert proc.returncode == 2 and "bomm" in proc.stderr and "bom" in proc.stderr


def test_unknown_clause_is_an_error_that_suggests_the_closest(tmp_path: Path) -> None:
    proc = agenttools("run", "--clauses", "READ-LN-01,READ-LN-1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "READ-LN-1" in proc.stderr and "did you mean READ-LN-01" in proc.stderr


def test_clause_selection_runs_exactly_those_clauses_tests(tmp_path: Path) -> None:
    proc = agenttools(
        "run", "--clauses", "READ-EOL-01,WRITE-BOM-01", "--report-json", "r.json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    ran = {test["clause"] for test in report["tests"] if test["outcome"] != "skipped"}
    assert ran == {"READ-EOL-01", "WRITE-BOM-01"}, ran
    assert report["summary"]["passed"] >= 2


SABOTEUR = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    raise AssertionError("sabotaged by an unrelated plugin")
"""


@pytest.mark.kit_long(58)
def test_run_loads_only_the_plugins_the_suite_needs(tmp_path: Path) -> None:
    """An installed plugin (found through its entry point, as pip installs one) fails every
    test of a plain pytest run, yet a run of the suite gives its verdicts as without it;
    ``-- -p NAME`` still loads a plugin on purpose."""
    site = tmp_path / "site"
    info = site / "saboteur-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "saboteur_plugin.py").write_text(SABOTEUR)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: saboteur\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nsaboteur = saboteur_plugin\n")
    (tmp_path / "test_plain.py").write_text("def test_fine():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert plain.returncode == 1 and "sabotaged" in plain.stdout, plain.stdout[-1500:]
    clean = agenttools("run", "--clauses", "READ-EOL-01", cwd=tmp_path, env=env)
    assert clean.returncode == 0, clean.stdout[-2000:] + clean.stderr
    assert "sabotaged" not in clean.stdout
    asked = agenttools(
        "run", "--clauses", "READ-EOL-01", "--", "-p", "saboteur_plugin", cwd=tmp_path, env=env
    )
    assert asked.returncode == 1 and "sabotaged" in asked.stdout, asked.stdout[-2000:]


def test_help_says_run_defaults_to_the_reference(tmp_path: Path) -> None:
    top = agenttools("--help", cwd=tmp_path).stdout
    assert re.search(
        r"run\s+run the conformance suite \(default: against the bundled\s+reference\)", top
    )
    for command in ("call", "init", "report", "baseline"):
        assert re.search(rf"^\s+{command}\s", top, re.M), command
    run = agenttools("run", "--help", cwd=tmp_path).stdout
    assert "bundled" in run and "reference" in run and "--strict" in run


@pytest.mark.parametrize(
    "bad",
    [["run", "--impl", "a:b", "--cmd", "x"], ["frobnicate"], ["report", "a.json", "--", "-x"]],
)
def test_bad_usage(tmp_path: Path, bad: list[str]) -> None:
    proc = agenttools(*bad, cwd=tmp_path)
    assert proc.returncode == 2 and "usage" in proc.stderr.lower()


def test_partial_run_counts_what_it_left_out_and_leaves_nothing_behind(tmp_path: Path) -> None:
    work, scratch = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    proc = agenttools(
        "run", "--tools", "read", "--report-json", "r.json", "--", "-k", "missing_file",
        cwd=work, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    report = json.loads((work / "r.json").read_text())
    ran = set(report["clauses"])
    assert ran == {"READ-NF-01"}
    must, passed, failed, xfailed, blocked, not_run = level_row(proc.stdout, "core")[:6]
    assert (passed, failed, xfailed, blocked) == (1, 0, 0, 0) and not_run == must - 1
    assert must == report["levels"]["core"]["MUST"]["not_run"] + 1
    assert "not selected by this run (tools read; -k 'missing_file')" in proc.stdout
    assert "report written to r.json" in proc.stdout
    assert "snapshot-update" not in proc.stdout, "syrupy advised deleting the kit's goldens"
    assert sorted(p.name for p in work.iterdir()) == ["r.json"], "the run littered the cwd"
    assert list(scratch.iterdir()) == [], "the run left temporary files behind"


def test_run_fails_on_a_broken_implementation(tmp_path: Path) -> None:
    proc = agenttools(
        "run", "--impl", BROKEN_EOL, "--tools", "read", "--", "-k", EOL_TESTS, cwd=tmp_path
    )
    assert proc.returncode == 1
    (line,) = clause_lines(proc.stdout, "READ-EOL-01")
    assert line.split()[0] == "FAIL" and "(2 tests: 2 failed)" in line
    assert level_row(proc.stdout, "core")[1:4] == [1, 1, 0]
    # the summary first, then pytest's failures, cut short, then the summary again
    lines = proc.stdout.splitlines()
    levels = [i for i, text in enumerate(lines) if text.split()[:1] == ["level"]]
    failures = [i for i, text in enumerate(lines) if text.startswith("=") and "FAILURES" in text]
    assert len(levels) == 2 and len(failures) == 1, proc.stdout
    assert levels[0] < failures[0] < levels[1]
    assert clause_lines("\n".join(lines[: failures[0]]), "READ-EOL-01") == [line]
    details = "\n".join(lines[failures[0] : levels[1]])
    assert "AssertionError" in details and "tools = <" not in details, "not --tb=short"


def test_strict_refuses_todo_reasons_and_accepts_real_ones(tmp_path: Path) -> None:
    (tmp_path / "todo.toml").write_text(
        '[[xfail]]\nid = "READ-EOL-01"\nreason = "TODO: say which behaviour breaks this clause"\n'
        '[[xfail]]\nid = "READ-BOM-01"\nreason = "todo"\n'
    )
    (tmp_path / "real.toml").write_text(
        '[[xfail]]\nid = "READ-EOL-01"\nreason = "we split lines on CR too"\n'
    )
    base = ["run", "--impl", BROKEN_EOL, "--tools", "read"]
    refused = agenttools(*base, "--expectations", "todo.toml", "--strict", cwd=tmp_path)
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "refuses 2 entries" in said
    assert "[[xfail]] #1 id='READ-EOL-01'" in said and "[[xfail]] #2 id='READ-BOM-01'" in said
    green = agenttools(
        *base, "--expectations", "real.toml", "--strict", "--", "-k", EOL_TESTS, cwd=tmp_path
    )
    assert green.returncode == 0, green.stdout[-2000:]
    (line,) = clause_lines(green.stdout, "READ-EOL-01")
    assert line.split()[0] == "xfail" and "(2 tests: 2 xfailed)" in line
    assert level_row(green.stdout, "core")[1:4] == [1, 0, 1]


def test_baseline_prune_keeps_reasons_drops_passing_adds_new(tmp_path: Path) -> None:
    proc = agenttools(
        "run", "--impl", BROKEN_EOL, "--tools", "read", "--report-json", "r.json",
        "--", "-k", EOL_TESTS, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    fresh = agenttools("baseline", "--report", "r.json", cwd=tmp_path)
    assert fresh.returncode == 0
    assert "agenttools run --expectations FILE --strict" in fresh.stdout
    assert "--agenttools-expectations FILE --agenttools-strict" in fresh.stdout
    assert [(e["id"], e["reason"][:4]) for e in tomllib.loads(fresh.stdout)["xfail"]] == [
        ("READ-EOL-01", "TODO")
    ]
    (tmp_path / "exp.toml").write_text(
        "# an old baseline\n"
        '[[xfail]]\nid = "READ-BOM-01"\nreason = "we showed the BOM once"\n\n'
        '[[xfail]]\nid = "test_read.py::test_lone_cr_is_not_a_line_break"\n'
        'reason = "we split lines on CR too"\n\n'
        '[[skip]]\nid = "tag:read.pdf"\nreason = "no PDF support yet"\n'
    )
    pruned = agenttools("baseline", "--report", "r.json", "--prune", "exp.toml", cwd=tmp_path)
    assert pruned.returncode == 0, pruned.stderr
    assert "kept 2 entries" in pruned.stdout and "dropped 1" in pruned.stdout
    assert "added 1" in pruned.stdout and "READ-BOM-01" in pruned.stdout
    data = tomllib.loads((tmp_path / "exp.toml").read_text())
    assert [(e["id"], e["reason"]) for e in data["xfail"]] == [
        ("test_read.py::test_lone_cr_is_not_a_line_break", "we split lines on CR too"),
        ("test_read.py::test_mixed_endings", "TODO: say which behaviour breaks this clause"),
    ]
    assert data["skip"] == [{"id": "tag:read.pdf", "reason": "no PDF support yet"}]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".exp")] == []


def test_report_says_where_it_wrote(tmp_path: Path) -> None:
    clause = next(c.id for c in SPEC.active() if c.tool == "read" and c.level == "MUST")
    for name, outcome in (("a", "passed"), ("b", "failed")):
        report = make_report("same", {clause: [outcome]})
        (tmp_path / f"{name}.json").write_text(json.dumps(report))
    proc = agenttools(
        "report", "a.json", "b.json", "--html", "out.html", "--markdown", "out.md", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "agenttools report: wrote HTML page out.html and Markdown summary out.md (2 reports)"
    )
    page = (tmp_path / "out.html").read_text()
    heads = re.findall(r'<th data-run="\d+">(.*?)</th>', page)
    assert len(set(heads)) == 2 and "a.json" in heads[0] and "b.json" in heads[1]
    assert f'id="{clause}"' in page and 'class="failed"' in page
    markdown = (tmp_path / "out.md").read_text()
    assert "| level | same 1.0 (stdio · a.json" in markdown
    stdout_only = agenttools("report", "a.json", cwd=tmp_path)
    assert stdout_only.stdout.startswith("## Agent tools conformance")
    missing = agenttools("report", "nope.json", cwd=tmp_path)
    assert missing.returncode != 0 and "nope.json" in missing.stderr
    (tmp_path / "other.json").write_text("[1, 2]")
    other = agenttools("report", "other.json", cwd=tmp_path)
    assert other.returncode != 0 and "not a conformance report" in other.stderr


def test_call_prints_one_raw_result(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n")
    proc = agenttools("call", "read", '{"path": "a.txt"}', cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["call"] == {"tool": "read", "arguments": {"path": "a.txt"}, "cwd": str(tmp_path)}
    assert out["result"]["isError"] is False
    assert out["result"]["details"]["observation"]["lines"] == ["one\r", "two"]
    assert out["observation"]["lines"] == ["one\r", "two"] and "raw" not in out["observation"]
    missing = json.loads(agenttools("call", "read", '{"path": "nope"}', cwd=tmp_path).stdout)
    assert missing["result"]["isError"] is True and missing["observation"] is None
    wrote = agenttools(
        "call", "write", '{"path": "b.txt", "content": "hi\\n"}', "--cmd", "agenttools serve",
        "--cwd", str(tmp_path), cwd=tmp_path / "..",
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stderr
    assert (tmp_path / "b.txt").read_bytes() == b"hi\n"
    assert json.loads(wrote.stdout)["observation"]["bytes_written"] == 3
    assert "stdio adapter" in json.loads(wrote.stdout)["adapter"]
    unknown = agenttools("call", "frobnicate", "{}", cwd=tmp_path)
    assert unknown.returncode == 1
    assert json.loads(unknown.stdout)["protocol_error"]["code"] == -32602
    bad = agenttools("call", "read", "{path", cwd=tmp_path)
    assert bad.returncode == 2 and "not JSON" in bad.stderr


def test_a_plugin_the_caller_blocks_is_not_loaded() -> None:
    """``-- -p no:NAME`` (by entry-point name, module or package) keeps one of the suite's
    plugins out; the others still load."""
    from pytest_agenttools.cli.runner import SUITE_PLUGINS, SuiteRun

    def loaded(*extra: str) -> list[str]:
        args = SuiteRun(extra=extra).args()
        return [args[i + 1] for i, arg in enumerate(args) if arg == "-p" and i + 1 < len(args)]

    everything = list(SUITE_PLUGINS)
    assert loaded()[: len(everything)] == everything
    assert not {"xdist.plugin", "xdist.looponfail"} & set(loaded("-p", "no:xdist"))
    assert "_hypothesis_pytestplugin" not in loaded("-pno:hypothesispytest")
    assert "syrupy" not in loaded("-p", "no:syrupy")
    assert "pytest_agenttools.plugin" in loaded("-p", "no:xdist")


@pytest.mark.kit_long(37)
def test_run_with_n_auto_starts_the_suites_worker_count(tmp_path: Path) -> None:
    """``agenttools run`` is spread over the suite's count of workers by default (xdist's plus as
    many again, at most four more), whatever order the plugins were loaded in; a plain pytest
    run keeps xdist's count."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_AUTO_NUM_WORKERS"}
    (tmp_path / "test_plain.py").write_text("def test_fine():\n    pass\n")
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "auto", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    found = re.search(r"created: (\d+)/\d+ workers", plain.stdout)
    assert found, plain.stdout[-1500:]
    cores = int(found.group(1))
    run = agenttools(
        "run",
        "--tools",
        "read",
        "--",
        "-k",
        "missing_file",
        "-v",
        cwd=tmp_path,
        env=env,
        spread=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"created: {cores + min(cores, 4)}/" in run.stdout, run.stdout[:1500]


@pytest.mark.parametrize(
    ("argv", "workers"),
    [
        (["run"], ["-n", "auto"]),
        (["run", "--tools", "read", "--", "-k", "bom"], ["-n", "auto"]),
        (["run", "--serial"], []),
        (["run", "--clauses", "READ-LN-01"], []),
        (["run", "--", "-n", "2"], []),
        (["run", "--", "-n0"], []),
        (["run", "--", "--numprocesses=3"], []),
        (["run", "--", "-p", "no:xdist"], []),
        (["run", "--", "-pno:xdist"], []),
        (["run", "--", "--pdb"], []),
    ],
)
def test_a_run_is_spread_over_the_cores_unless_told_otherwise(
    argv: list[str], workers: list[str]
) -> None:
    from pytest_agenttools.cli.commands import build_parser, default_workers

    cut = argv.index("--") if "--" in argv else len(argv)
    ns = build_parser().parse_args(argv[:cut])
    assert default_workers(ns, argv[cut + 1 :]) == workers


@pytest.mark.parametrize(
    ("argv", "tb"),
    [
        (["run"], ["--tb=short"]),
        (["run", "-v"], []),
        (["run", "--", "--tb=long"], []),
        (["run", "--", "--tb", "native"], []),
    ],
)
def test_a_run_cuts_tracebacks_short_unless_told_otherwise(argv: list[str], tb: list[str]) -> None:
    from pytest_agenttools.cli.commands import build_parser, default_traceback

    cut = argv.index("--") if "--" in argv else len(argv)
    ns = build_parser().parse_args(argv[:cut])
    assert default_traceback(ns, argv[cut + 1 :]) == tb
