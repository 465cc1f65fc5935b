"""Every rendering of a report (terminal, Markdown, HTML in headless Chromium) from its JSON."""

from __future__ import annotations

import html as html_module
import json
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.report.data import compute_levels, undeclared_tools
from pytest_agenttools.report.render import (
    Run,
    assertion,
    column_labels,
    inline,
    terminal_lines,
    to_html,
    to_markdown,
)
from pytest_agenttools.spec.clauses import CORE, load

SPEC = load()
READ = [c for c in SPEC.active() if c.tool == "read"]
READ_CORE_MUST = [c.id for c in READ if c.level == "MUST" and c.conformance_level == CORE]
NOT_SELECTED = "not selected by this run (tools read)"
ASSERTION = "AssertionError: assert b'a\\nb' == b'a\\r\\nb'"
#: the assertion as a report shows it (without the exception type)
SHOWN = ASSERTION.removeprefix("AssertionError: ")


def make_report(
    name: str,
    outcomes: Mapping[str, list[str]],
    *,
    tools: tuple[str, ...] = ("read", "write"),
    features: tuple[str, ...] = (),
    adapter: str = "stdio adapter `./x`",
    started: str = "2026-11-30T10:00:00Z",
) -> dict[str, Any]:
    """A report as ``--agenttools-report`` writes it: ``outcomes`` gives each clause that ran
    its tests' outcomes; every other clause of a declared tool was not selected."""
    from pytest_agenttools.report.data import clause_verdict

    tests = []
    for clause_id, results in outcomes.items():
        for i, outcome in enumerate(results):
            failed = outcome in ("failed", "error")
            tests.append(
                {
                    "nodeid": f"conformance/test_x.py::test_{clause_id}[{i}]",
                    "id": f"test_x.py::test_{clause_id}[{i}]",
                    "clause": clause_id,
                    "outcome": outcome,
                    "message": ("long traceback line\n" * 80 + f"E   {ASSERTION}\n")
                    if failed
                    else "",
                    "assertion": ASSERTION if failed else "",
                }
            )
    verdicts = {cid: clause_verdict(results) for cid, results in outcomes.items()}
    not_run = {
        c.id: NOT_SELECTED for c in SPEC.active() if c.tool in tools and c.id not in verdicts
    }
    impl = {
        "name": name,
        "version": "1.0",
        "adapter": adapter,
        "manifest": {"tools": list(tools), "features": list(features)},
    }
    return {
        "format": "agenttools-report/2",
        "implementation": impl,
        "started": started,
        "summary": {"passed": sum(r.count("passed") for r in outcomes.values())},
        "clauses": verdicts,
        "not_run": not_run,
        "tests": tests,
        "levels": compute_levels(SPEC, verdicts, not_run, impl),
        "undeclared_tools": undeclared_tools(SPEC, impl),
        "problems": [],
    }


def partial_run() -> Run:
    """Three read clauses ran (one failed, one failed as expected, one passed)."""
    outcomes = {
        READ_CORE_MUST[0]: ["passed", "passed"],
        READ_CORE_MUST[1]: ["failed", "passed"],
        READ_CORE_MUST[2]: ["xfailed"],
    }
    return Run.from_report(make_report("alpha", outcomes), SPEC, "alpha.json")


def core_must_total(tools: tuple[str, ...]) -> int:
    return sum(
        1
        for c in SPEC.active()
        if c.tool in tools and c.level == "MUST" and c.conformance_level == CORE
    )


def test_levels_count_every_clause_of_the_declared_tools() -> None:
    run = partial_run()
    core = run.levels[CORE]["MUST"]
    assert core == {
        "passed": 1,
        "failed": 1,
        "expected": 1,
        "blocked": 0,
        "not_run": core_must_total(("read", "write")) - 3,
    }
    assert run.levels[CORE]["not_run_reasons"] == {
        NOT_SELECTED: core["not_run"] + sum(run.levels[CORE]["SHOULD"].values())
    }
    assert "bash" in run.undeclared_tools and "read" not in run.undeclared_tools


def test_terminal_shows_what_did_not_run_and_why() -> None:
    lines = terminal_lines(partial_run())
    (core,) = [line for line in lines if line.split()[:1] == [CORE]]
    numbers = [int(n) for n in core.split()[1:7]]
    assert numbers == [core_must_total(("read", "write")), 1, 1, 1, 0, numbers[0] - 3]
    assert any(NOT_SELECTED in line and line.strip().startswith("not run:") for line in lines)
    failed = [line for line in lines if READ_CORE_MUST[1] in line]
    assert failed and failed[0].split()[0] == "FAIL" and "2 tests: 1 failed, 1 passed" in failed[0]
    undeclared = [line for line in lines if "is not declared" in line]
    tools = {c.tool for c in SPEC.active() if not c.for_every_implementation}
    assert len(undeclared) == len(tools - {"read", "write"})
    assert all(
        re.fullmatch(r"  not run: tool \w+ is not declared \(\d+ clauses\)", line)
        for line in undeclared
    )


def blocked_run() -> Run:
    """One read clause blocked by another clause's precondition, one passed."""
    data = make_report(
        "alpha", {READ_CORE_MUST[0]: ["blocked", "passed"], READ_CORE_MUST[1]: ["passed"]}
    )
    for test in data["tests"]:
        if test["outcome"] == "blocked":
            test["blocked_by"] = "READ-OFF-01"
            test["message"] = "Skipped: blocked by READ-OFF-01: the read | failed"
    return Run.from_report(data, SPEC, "alpha.json")


def test_a_blocked_clause_is_counted_and_shown_in_every_form() -> None:
    run = blocked_run()
    blocked = READ_CORE_MUST[0]
    assert run.verdict(blocked) == "blocked"
    must = run.levels[CORE]["MUST"]
    assert must["blocked"] == 1 and must["passed"] == 1, "a blocked MUST is not passed"
    lines = terminal_lines(run)
    (core,) = [line for line in lines if line.split()[:1] == [CORE]]
    assert [int(n) for n in core.split()[1:7]][1:5] == [1, 0, 0, 1]
    (shown,) = [line for line in lines if blocked in line]
    assert shown.split()[0] == "BLOCK"
    assert "blocked by READ-OFF-01: the read | failed" in shown
    markdown = to_markdown([run])
    assert "1 blocked" in markdown
    row = next(line for line in markdown.splitlines() if line.startswith(f"| {blocked} "))
    assert "blocked (blocked by READ-OFF-01: the read \\| failed)" in row
    page = to_html([run])
    assert 'data-verdict="blocked"' in page and "blocked by READ-OFF-01" in page
    assert '<span data-k="blocked">1</span> blocked' in page


def test_tally_counts_tests_by_outcome() -> None:
    clause = READ_CORE_MUST[0]
    run = Run.from_report(make_report("a", {clause: ["xpassed"] * 3}), SPEC)
    assert run.tally(clause) == "3 tests: 3 xpassed"
    (line,) = [line for line in terminal_lines(run) if clause in line]
    assert line.split()[0] == "XPASS" and "(3 tests: 3 xpassed)" in line


def test_markdown_shows_levels_reasons_and_assertions() -> None:
    text = to_markdown([partial_run()])
    total = core_must_total(("read", "write"))
    counts = f"1 failed, 1 failed as expected, {total - 3} not run"
    assert f"MUST 1 of {total} passed, {counts}" in text
    levels = text.split("### Clauses")[0]
    assert not re.search(r"\b0 (failed|blocked|not run)", levels), "no count of zero is repeated"
    assert NOT_SELECTED in text
    assert f"**{READ_CORE_MUST[1]}**" in text and SHOWN in text and ASSERTION not in text
    assert "alpha 1.0 (stdio · alpha.json · 2026-11-30 10:00:00 UTC)" in text


def test_column_headers_tell_two_runs_of_one_implementation_apart() -> None:
    reports = [
        make_report("alpha", {}, adapter="in-process adapter 'm:f'"),
        make_report("alpha", {}, adapter="stdio adapter `x`"),
        make_report("alpha", {}, started="2026-11-30T11:00:00Z"),
        make_report("alpha", {}, started="2026-11-30T11:00:00Z"),
    ]
    runs = [Run.from_report(r, SPEC, f"runs/{i}.json") for i, r in enumerate(reports[:3])]
    labels = column_labels(runs)
    assert len(set(labels)) == 3
    assert [label[1].split(" · ")[0] for label in labels] == ["in-process", "stdio", "stdio"]
    same = [Run.from_report(r, SPEC, "same.json") for r in reports[2:]]
    assert len(set(column_labels(same))) == 2, "identical runs still get distinct headers"
    page = to_html(runs)
    heads = re.findall(r'<th data-run="\d+">(.*?)</th>', page)
    assert len(heads) == 6 and len(set(heads)) == 3  # the levels table and the matrix


def test_failing_cell_starts_with_its_assertion() -> None:
    page = to_html([partial_run()])
    row = re.search(rf'<tr class="clause" id="{READ_CORE_MUST[1]}".*?</tr>', page, re.S)
    assert row
    cell = row.group(0)
    shown = cell.index('class="assert"')
    assert shown < cell.index("<details>"), "the assertion must be visible without opening"
    assert html_module.escape(SHOWN, quote=True) in cell[shown : cell.index("<details>")]


def test_inline_code_is_rendered_in_html() -> None:
    assert inline("use `offset` & <b>") == "use <code>offset</code> &amp; &lt;b&gt;"
    page = to_html([partial_run()])
    with_code = next(c for c in SPEC.active() if "`" in c.text)
    row = re.search(rf'<tr class="clause" id="{with_code.id}".*?</tr>', page, re.S)
    assert row is not None
    assert "<code>" in page and "`" not in re.sub(r"<script.*?</script>", "", page, flags=re.S)


def test_html_is_self_contained_and_escapes() -> None:
    report = make_report("<alpha>", {READ_CORE_MUST[0]: ["failed"]})
    report["tests"][0]["message"] = "boom <tag>"
    page = to_html([Run.from_report(report, SPEC)])
    assert "<script src" not in page and "<link" not in page and "http://" not in page
    assert "boom &lt;tag&gt;" in page and "boom <tag>" not in page
    assert "&lt;alpha&gt;" in page and "<alpha>" not in page
    assert page.count('class="clause"') == len(SPEC.active())


def test_an_older_report_without_levels_is_still_counted() -> None:
    report = make_report("old", {READ_CORE_MUST[0]: ["passed"]})
    for key in ("levels", "undeclared_tools", "not_run", "started"):
        del report[key]
    run = Run.from_report(report, SPEC)
    core = run.levels[CORE]
    assert core["MUST"]["passed"] == 1
    assert core["MUST"]["not_run"] == core_must_total(("read", "write")) - 1
    not_run = core["MUST"]["not_run"] + core["SHOULD"]["not_run"]
    assert core["not_run_reasons"] == {"not in this run": not_run}


def test_a_failing_cell_reads_as_the_tests_message_not_pythons_reprs() -> None:
    from pytest_agenttools.report.render import readable

    said = (
        "AssertionError: the observation says 6 bytes written, the file has 11\n"
        "assert 6 == 11\n"
        " +  where 6 = WriteObservation(path='/x/s.txt', bytes_written=6).bytes_written"
    )
    assert readable(said) == "the observation says 6 bytes written, the file has 11"
    bare = (
        "AssertionError: assert b'' == b'\\xff\\xfe'\n  \n  Use -v to get more diff\n"
        "Failing test case: test_bytes_on_disk(\n"
        "    tools=<pytest_agenttools.harness.client.ToolClient object at 0x7fd346308710>,"
    )
    assert readable(bare) == "assert b'' == b'\\xff\\xfe'", "the assert only without a message"
    assert readable("x <pytest_agenttools.harness.client.ToolClient object at 0x7f01>") == (
        "x <ToolClient>"
    )
    report = make_report("a", {READ_CORE_MUST[0]: ["failed"]})
    report["tests"][0]["assertion"] = said
    run = Run.from_report(report, SPEC)
    page = to_html([run])
    row = re.search(rf'<tr class="clause" id="{READ_CORE_MUST[0]}".*?</tr>', page, re.S)
    assert row
    visible = row.group(0)[: row.group(0).index("<details>")]
    assert "the file has 11" in visible
    assert "WriteObservation(" not in visible and "AssertionError" not in visible
    blocked = {"outcome": "blocked", "blocked_by": "WRITE-BOM-01"}
    blocked["message"] = "pytest_agenttools.harness.assertions.Blocked: blocked by WRITE-BOM-01: x"
    from pytest_agenttools.report.render import blocked_text

    assert blocked_text(blocked) == "blocked by WRITE-BOM-01: x"


def test_assertion_of_an_older_record_comes_from_its_message() -> None:
    message = "def test():\n>       assert x\nE       assert 1 == 2\nE        +  where 1 = f()\n"
    assert assertion({"message": message}) == "assert 1 == 2\n+  where 1 = f()"


# --- in a real browser ------------------------------------------------------------------------


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


def two_runs() -> list[Run]:
    second = make_report(
        "beta",
        {READ_CORE_MUST[0]: ["passed"], READ_CORE_MUST[1]: ["passed"]},
        tools=("read",),
        adapter="in-process adapter 'b:create'",
    )
    return [partial_run(), Run.from_report(second, SPEC, "beta.json")]


def test_html_in_a_real_browser(tmp_path: Path) -> None:
    runs = two_runs()
    page = tmp_path / "report.html"
    page.write_text(to_html(runs), encoding="utf-8")
    dom = browser("--dump-dom", page.as_uri(), profile=tmp_path / "p1").stdout
    assert 'class="matrix"' in dom, "the page did not render"
    found = re.findall(r'<td class="level-(\w+)" data-level="core">(.*?)</td>', dom, re.S)
    assert [state for state, _ in found] == ["failed", "partial"]
    for run, (_, cell) in zip(runs, found, strict=True):
        must = re.search(r'<div class="must">(.*?)</div>', cell, re.S)
        assert must
        shown = dict(re.findall(r'data-k="(\w+)">(\d+)<', must.group(1)))
        counts = run.levels[CORE]["MUST"]
        assert {k: int(v) for k, v in shown.items()} == {**counts, "total": sum(counts.values())}
        assert "not run: " in cell and "not selected by this run" in cell
    shown_all = re.search(r'<span id="shown">(\d+)</span>', dom)
    assert shown_all and int(shown_all.group(1)) == len(SPEC.active())
    filtered = browser("--dump-dom", page.as_uri() + "#tool=write", profile=tmp_path / "p2").stdout
    count = re.search(r'<span id="shown">(\d+)</span>', filtered)
    assert count and int(count.group(1)) == sum(c.tool == "write" for c in SPEC.active())
    hidden = re.findall(
        r'<tr class="clause" id="([^"]+)" data-tool="(\w+)"[^>]*style="display: none;"', filtered
    )
    assert hidden and all(tool != "write" for _, tool in hidden)
    data = re.search(r'id="agenttools-levels">(.*?)</script>', dom, re.S)
    assert data
    levels = json.loads(html_module.unescape(data.group(1)))
    assert [entry["levels"][CORE]["MUST"] for entry in levels] == [
        run.levels[CORE]["MUST"] for run in runs
    ]


#: measures the page as laid out: how wide the document is against the window, and how many
#: cells of the matrix reach past the window's right edge
MEASURE = """<script>window.addEventListener('load',function(){
  const cells=[...document.querySelectorAll('table.matrix td, table.matrix th')];
  const out=cells.filter(function(c){return c.getBoundingClientRect().right>innerWidth+1;});
  document.body.dataset.measured=JSON.stringify({width:document.documentElement.scrollWidth,
    window:innerWidth,out:out.length,cells:cells.length});
});</script>"""


def test_three_runs_side_by_side_fit_the_window(tmp_path: Path) -> None:
    third = make_report(
        "gamma",
        {READ_CORE_MUST[1]: ["failed"]},
        adapter="MCP adapter `npx some-server {tmp}`",
    )
    third["tests"][0]["assertion"] = "AssertionError: " + "b'\\xef\\xbb\\xbf" * 60
    runs = [*two_runs(), Run.from_report(third, SPEC, "gamma.json")]
    page = tmp_path / "three.html"
    page.write_text(to_html(runs).replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = browser(
        "--dump-dom", "--window-size=1280,900", page.as_uri(), profile=tmp_path / "p4"
    ).stdout
    found = re.search(r'data-measured="([^"]+)"', dom)
    assert found, "the page did not render"
    measured = json.loads(html_module.unescape(found.group(1)))
    assert measured["cells"] > 3 * len(SPEC.active())
    assert measured["out"] == 0, f"cells of the matrix are cut off at the window's edge: {measured}"
    assert measured["width"] <= measured["window"], measured


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_screenshot_of_the_page(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(to_html(two_runs()), encoding="utf-8")
    shot = tmp_path / "report.png"
    browser(
        f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri(), profile=tmp_path / "p3"
    )
    assert shot.exists(), "no screenshot was taken"
    assert png_size(shot) == (1400, 1000)
    assert shot.stat().st_size > 20_000, "the screenshot looks blank"
    keep = os.environ.get("AGENTTOOLS_SCREENSHOT_DIR")
    if keep:
        shutil.copyfile(shot, Path(keep) / "report.png")


def test_reasons_are_shown_without_prefixes() -> None:
    from pytest_agenttools.report.data import why_not_run

    skipped = "Skipped: not run: optional feature read.pdf not declared by mytools"
    assert why_not_run(skipped) == "optional feature read.pdf not declared by mytools"
    assert why_not_run("not run: slow clause; run with --agenttools-slow\nmore") == (
        "slow clause; run with --agenttools-slow"
    )
    report = make_report("a", {READ_CORE_MUST[0]: ["passed"]})
    pdf = [c.id for c in READ if "read.pdf" in c.features]
    for clause in pdf:
        report["not_run"][clause] = skipped
    report["levels"] = compute_levels(
        SPEC, report["clauses"], report["not_run"], report["implementation"]
    )
    lines = terminal_lines(Run.from_report(report, SPEC))
    assert f"  not run: {len(pdf)} clauses ({len(pdf)} in read.pdf): {skipped[18:]}" in lines


def test_a_start_up_failure_is_said_once_at_the_top() -> None:
    report = make_report("x", {READ_CORE_MUST[0]: ["error"], READ_CORE_MUST[1]: ["error"]})
    report["implementation"] = {}
    for test in report["tests"]:
        test["assertion"] = "Failed: agenttools: the implementation could not be started: boom"
    lines = terminal_lines(Run.from_report(report, SPEC))
    assert lines[:2] == ["agenttools: ? via ?", "  the implementation could not be started: boom"]


def test_verbose_lists_every_clause_with_failing_assertions() -> None:
    run = partial_run()
    quiet, verbose = terminal_lines(run), terminal_lines(run, verbose=True)
    passed = READ_CORE_MUST[0]
    assert not any(line.split()[1:2] == [passed] for line in quiet)
    (line,) = [line for line in verbose if line.split()[1:2] == [passed]]
    assert line.split()[0] == "pass" and "(2 tests: 2 passed)" in line
    not_selected = next(c for c in READ_CORE_MUST[3:])
    (line,) = [line for line in verbose if line.split()[1:2] == [not_selected]]
    assert line.split()[0] == "skip" and f"(not run: {NOT_SELECTED})" in line
    failing = f"        test_x.py::test_{READ_CORE_MUST[1]}[0]: {SHOWN}"
    assert failing in verbose and failing not in quiet
