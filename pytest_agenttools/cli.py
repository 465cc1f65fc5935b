"""The ``agenttools`` command: a thin shell over ``run_conformance`` and the report data.

``agenttools run`` runs the shipped suite against an implementation (the bundled reference,
in-process, by default) and prints a per-clause summary; ``serve`` serves the reference over
stdio; ``clauses`` lists the spec.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

SUITE = "pytest_agenttools.conformance"
MARK = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
    "xfailed": "xfail",
    "xpassed": "XPASS",
}


def run_conformance(
    *,
    impl: str | None = None,
    cmd: str | None = None,
    mcp: str | None = None,
    mcp_mapping: str | None = None,
    manifest: str | None = None,
    expectations: str | None = None,
    strict: bool = False,
    report_json: str | None = None,
    tools: str | None = None,
    features: str | None = None,
    pytest_args: Sequence[str] = (),
) -> tuple[int, dict[str, Any]]:
    """Run the suite in this process; return pytest's exit code and the report data."""
    import pytest

    from .clauses import suite_dir

    handle, path = tempfile.mkstemp(prefix="agenttools-report-", suffix=".json")
    os.close(handle)
    target = report_json or path
    root = str(suite_dir())
    args = [
        "--pyargs",
        SUITE,
        "--rootdir",
        root,
        "-c",
        os.path.join(root, "pytest.ini"),
        "-p",
        "no:benchmark",
        # a partial run (-k, --tools) leaves goldens of other tests unused, not stale
        "--snapshot-warn-unused",
        "--agenttools-report",
        target,
        "-q",
        "-rfE",
    ]
    for flag, value in (
        ("impl", impl),
        ("cmd", cmd),
        ("mcp", mcp),
        ("mcp-mapping", mcp_mapping),
        ("manifest", manifest),
        ("expectations", expectations),
        ("tools", tools),
        ("features", features),
    ):
        if value:
            args += [f"--agenttools-{flag}", value]
    if strict:
        args.append("--agenttools-strict")
    args += list(pytest_args)
    # The run must leave nothing in the caller's directory (no .hypothesis, no caches).
    scratch = tempfile.mkdtemp(prefix="agenttools-hypothesis-")
    previous = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = scratch
    try:
        code = int(pytest.main(args))
    finally:
        if previous is None:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        else:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = previous
        shutil.rmtree(scratch, ignore_errors=True)
    try:
        with open(target, encoding="utf-8") as stream:
            report = json.load(stream)
    except (OSError, ValueError):
        report = {}
    finally:
        if target == path:
            os.unlink(path)
    return code, report


def render_summary(report: dict[str, Any]) -> list[str]:
    """Per-clause lines and a total, from report data (no pytest involved)."""
    from .clauses import load

    spec = load().by_id()
    tests_per_clause: dict[str, list[str]] = {}
    for test in report.get("tests", []):
        if test.get("clause"):
            tests_per_clause.setdefault(test["clause"], []).append(test["outcome"])
    lines = []
    impl = report.get("implementation", {})
    lines.append(
        f"agenttools: {impl.get('name', '?')} {impl.get('version', '')} "
        f"via {impl.get('adapter', '?')}"
    )
    for clause_id, outcome in report.get("clauses", {}).items():
        clause = spec.get(clause_id)
        outcomes = tests_per_clause.get(clause_id, [])
        passed = sum(1 for o in outcomes if o == "passed")
        level = clause.level if clause else "?"
        title = clause.title if clause else ""
        lines.append(
            f"  {MARK.get(outcome, outcome):5} {clause_id:18} {level:6} "
            f"{passed}/{len(outcomes)} tests  {title}"
        )
    summary = report.get("summary", {})
    lines.append(
        "  "
        + ", ".join(
            f"{summary.get(k, 0)} {k}"
            for k in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
        )
    )
    for problem in report.get("problems", []):
        lines.append(f"  ! {problem}")
    return lines


def _run(ns: argparse.Namespace, extra: list[str]) -> int:
    code, report = run_conformance(
        impl=ns.impl,
        cmd=ns.cmd,
        mcp=ns.mcp,
        mcp_mapping=ns.mcp_mapping,
        manifest=ns.manifest,
        expectations=ns.expectations,
        strict=ns.strict,
        report_json=ns.report_json,
        tools=ns.tools,
        features=ns.features,
        pytest_args=extra,
    )
    if report:
        print("\n".join(render_summary(report)))
    summary = report.get("summary", {})
    clean = report and summary.get("failed", 0) == 0 and summary.get("error", 0) == 0
    if code == 0 and clean:
        return 0
    return code or 1


def _serve(ns: argparse.Namespace) -> int:
    from .reference_impl.server import serve

    tools = None
    if ns.impl:
        from .adapters.base import AdapterError
        from .adapters.inprocess import load_factory

        try:
            tools = load_factory(ns.impl)()
        except AdapterError as exc:
            raise SystemExit(f"agenttools serve: {exc}") from None
    return serve(tools=tools, exit_process=True, max_line_bytes=ns.max_line_bytes)


def _load_reports(paths: Sequence[str]) -> list[dict[str, Any]]:
    reports = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                reports.append(json.load(handle))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"agenttools: cannot read report {path!r}: {exc}") from None
    return reports


def _report(ns: argparse.Namespace) -> int:
    from .clauses import load
    from .render import Matrix, to_html, to_markdown

    matrix = Matrix.from_reports(load(), _load_reports(ns.reports))
    if not ns.html and not ns.markdown:
        sys.stdout.write(to_markdown(matrix))
    if ns.html:
        with open(ns.html, "w", encoding="utf-8") as handle:
            handle.write(to_html(matrix))
    if ns.markdown:
        with open(ns.markdown, "w", encoding="utf-8") as handle:
            handle.write(to_markdown(matrix))
    return 0


def _baseline(ns: argparse.Namespace) -> int:
    from .baseline import render_baseline

    sys.stdout.write(render_baseline(_load_reports([ns.report])[0]))
    return 0


def _selfcheck(ns: argparse.Namespace) -> int:
    from .selfcheck import render, run_selfcheck

    kills = run_selfcheck(ns.only or None, jobs=ns.jobs)
    print("\n".join(render(kills)))
    if ns.json:
        with open(ns.json, "w", encoding="utf-8") as handle:
            json.dump([k.to_json() for k in kills], handle, indent=2)
    return 0 if all(k.ok for k in kills) else 1


def _clauses(ns: argparse.Namespace) -> int:
    from .clauses import clause_test_index, load, render_markdown

    spec = load()
    if ns.markdown:
        sys.stdout.write(render_markdown(spec, clause_test_index()))
        return 0
    for clause in spec.clauses:
        if ns.tool and clause.tool != ns.tool:
            continue
        needs = f"  [{', '.join(clause.features)}]" if clause.features else ""
        retired = " (retired)" if clause.retired else ""
        print(f"{clause.id:18} {clause.level:6} {clause.title}{retired}{needs}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenttools", description="Conformance kit for the tools of coding agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run",
        help="run the conformance suite against an implementation",
        description="Run the shipped suite. Arguments after -- go to pytest (e.g. -- -n auto).",
    )
    which = run.add_mutually_exclusive_group()
    which.add_argument("--impl", help="in-process factory 'package.module:factory'")
    which.add_argument("--cmd", help="command that starts a stdio implementation server")
    which.add_argument(
        "--mcp",
        metavar="COMMAND",
        help="command that starts an MCP tool server ({tmp}: the workspace directory)",
    )
    run.add_argument(
        "--mcp-mapping", metavar="FILE", help="TOML mapping of canonical tools to the MCP server's"
    )
    run.add_argument("--manifest", help="TOML manifest file")
    run.add_argument("--expectations", help="TOML expectations file (xfail / skip entries)")
    run.add_argument("--strict", action="store_true", help="stale or unmatched entries fail")
    run.add_argument("--report-json", metavar="FILE", help="write the JSON report here")
    run.add_argument("--tools", help="only these tools' clauses (comma-separated: edit,bash)")
    run.add_argument("--features", help="only clauses with these features or tags (bom,crlf)")
    serve = commands.add_parser(
        "serve", help="serve the reference (or any in-process implementation) over stdio"
    )
    serve.add_argument(
        "--impl", help="serve this in-process factory 'package.module:factory' instead"
    )
    serve.add_argument(
        "--max-line-bytes",
        type=int,
        default=64 * 1024 * 1024,
        metavar="N",
        help="longest request line read whole; longer ones are answered -32600 (default 64 MiB)",
    )
    report = commands.add_parser(
        "report", help="render one or more JSON reports (HTML matrix, Markdown summary)"
    )
    report.add_argument("reports", nargs="+", metavar="REPORT.json")
    report.add_argument("--html", metavar="FILE", help="write a self-contained HTML page")
    report.add_argument("--markdown", metavar="FILE", help="write Markdown (default: stdout)")
    baseline = commands.add_parser(
        "baseline", help="print an expectations file covering a report's current failures"
    )
    baseline.add_argument("--report", required=True, metavar="REPORT.json")
    selfcheck = commands.add_parser(
        "selfcheck", help="run the suite against every shipped broken implementation"
    )
    selfcheck.add_argument("only", nargs="*", help="broken implementations (default: all)")
    selfcheck.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    selfcheck.add_argument("--json", metavar="FILE", help="write the kill matrix as JSON")
    clauses = commands.add_parser("clauses", help="list the spec clauses")
    clauses.add_argument("--tool", help="only this tool's clauses")
    clauses.add_argument("--markdown", action="store_true", help="print docs/spec.md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1 :]
    parser = build_parser()
    ns = parser.parse_args(args)
    if ns.command == "run" and bool(ns.mcp) != bool(ns.mcp_mapping):
        parser.error("--mcp and --mcp-mapping go together (see docs/mcp-adapter.md)")
    if ns.command == "run":
        return _run(ns, extra)
    commands = {
        "serve": _serve,
        "report": _report,
        "baseline": _baseline,
        "selfcheck": _selfcheck,
        "clauses": _clauses,
    }
    return commands[ns.command](ns)


if __name__ == "__main__":
    sys.exit(main())
