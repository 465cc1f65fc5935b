"""The ``agenttools`` command: a thin shell over ``run_conformance`` and the report data.

``agenttools run`` runs the shipped suite against an implementation (the bundled reference,
in-process, by default) and prints a per-clause summary; ``serve`` serves the reference over
stdio; ``clauses`` lists the spec.
"""

from __future__ import annotations

import argparse
import json
import sys
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
    from .runner import SuiteRun, run_in_process

    return run_in_process(
        SuiteRun(
            impl=impl,
            cmd=cmd,
            mcp=mcp,
            mcp_mapping=mcp_mapping,
            manifest=manifest,
            expectations=expectations,
            strict=strict,
            report=report_json,
            tools=tools,
            features=features,
            extra=tuple(pytest_args),
        )
    )


def render_summary(report: dict[str, Any], *, verbose: bool = False) -> list[str]:
    """The run in a few lines, from report data (no pytest involved).

    First the conformance levels (core, then each feature): how many MUST and SHOULD clauses
    passed, failed, failed as expected and did not run. Then every clause that did not pass,
    with why; clauses of tools the implementation does not declare are one line per tool.
    ``verbose`` lists the passing clauses too.
    """
    from .clauses import load
    from .report import level_lines

    spec = load()
    by_id = spec.by_id()
    impl = report.get("implementation", {})
    declared_tools = set((impl.get("manifest") or {}).get("tools", []))
    lines = [
        f"agenttools: {impl.get('name', '?')} {impl.get('version', '')} "
        f"via {impl.get('adapter', '?')}"
    ]
    levels = report.get("levels") or {}
    if levels:
        lines += ["  " + line for line in level_lines(levels)]
    outcomes: dict[str, list[str]] = {}
    for test in report.get("tests", []):
        if test.get("clause"):
            outcomes.setdefault(test["clause"], []).append(test["outcome"])
    reasons = report.get("not_run", {})
    undeclared: dict[str, int] = {}
    for clause_id, verdict in report.get("clauses", {}).items():
        clause = by_id.get(clause_id)
        if (
            clause is not None
            and declared_tools
            and clause.tool not in declared_tools
            and not clause.for_every_implementation
        ):
            undeclared[clause.tool] = undeclared.get(clause.tool, 0) + 1
            continue
        if verdict == "passed" and not verbose:
            continue
        counts = outcomes.get(clause_id, [])
        tally = ", ".join(
            f"{counts.count(o)} {o}"
            for o in ("passed", "failed", "error", "xfailed", "xpassed", "skipped")
            if counts.count(o)
        )
        level = clause.level if clause else "?"
        title = clause.title if clause else ""
        why = f"  ({reasons[clause_id]})" if verdict == "skipped" and clause_id in reasons else ""
        lines.append(
            f"  {MARK.get(verdict, verdict):5} {clause_id:18} {level:6} {tally}  {title}{why}"
        )
    for tool, count in sorted(undeclared.items()):
        lines.append(f"  not run: tool {tool} is not declared ({count} clauses)")
    summary = report.get("summary", {})
    lines.append(
        "  tests: "
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
        print("\n".join(render_summary(report, verbose=ns.verbose)))
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
    from .selfcheck import (
        alternative_implementations,
        broken_implementations,
        render,
        render_alternatives,
        run_alternatives,
        run_selfcheck,
    )

    broken = [n for n in ns.only if n in broken_implementations()] if ns.only else None
    alternatives = [n for n in ns.only if n in alternative_implementations()] if ns.only else None
    unknown = set(ns.only) - set(broken or ()) - set(alternatives or ())
    if unknown:
        raise SystemExit(
            f"agenttools selfcheck: unknown implementation(s) {sorted(unknown)}; broken: "
            f"{', '.join(broken_implementations())}; alternatives: "
            f"{', '.join(alternative_implementations())}"
        )
    kills = (
        []
        if ns.alternatives_only or (ns.only and not broken)
        else run_selfcheck(broken, jobs=ns.jobs)
    )
    rows = []
    if not ns.broken_only and not (ns.only and not alternatives):
        rows = run_alternatives(alternatives, jobs=ns.jobs)
        if ns.stdio:
            rows += run_alternatives(alternatives, stdio=True, jobs=ns.jobs)
    if kills:
        print("\n".join(render(kills)))
    if rows:
        print("\n".join(render_alternatives(rows)))
    if ns.json:
        with open(ns.json, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "broken": [k.to_json() for k in kills],
                    "alternatives": [r.to_json() for r in rows],
                },
                handle,
                indent=2,
            )
    return 0 if all(k.ok for k in kills) and all(r.ok for r in rows) else 1


def _clauses(ns: argparse.Namespace) -> int:
    from .clauses import clause_test_index, implementation_index, load, render_markdown

    spec = load()
    if ns.markdown:
        sys.stdout.write(render_markdown(spec, clause_test_index(), implementation_index()))
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
    run.add_argument(
        "-v", "--verbose", action="store_true", help="list passing clauses too, one line each"
    )
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
        "selfcheck",
        help="run the suite against the shipped broken implementations (each must fail) and "
        "alternative correct implementations (each must pass)",
    )
    selfcheck.add_argument(
        "only", nargs="*", help="broken or alternative implementations by name (default: all)"
    )
    side = selfcheck.add_mutually_exclusive_group()
    side.add_argument("--broken-only", action="store_true", help="only the broken ones")
    side.add_argument("--alternatives-only", action="store_true", help="only the alternatives")
    selfcheck.add_argument(
        "--stdio", action="store_true", help="also serve each alternative over stdio"
    )
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
