"""The ``agenttools`` command: a thin shell over ``run_conformance``, the report data and its
renderers (``render.py``).

``run`` runs the shipped suite against an implementation (the bundled reference, in process,
by default) and prints the conformance levels and the clauses that did not pass; ``call`` sends
one call and prints the raw result; ``init`` writes an adapter skeleton; ``report`` and
``baseline`` turn JSON reports into pages and expectations files; ``selfcheck`` runs the broken
and alternative implementations; ``clauses`` lists the spec; ``serve`` serves the reference
(over stdio, or with ``--mcp`` as an MCP tool server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EPILOG = "Run `agenttools COMMAND --help` for a command's options."


def run_conformance(
    *,
    pytest_args: Sequence[str] = (),
    pytest_summary: bool = True,
    report_json: str | None = None,
    **options: Any,
) -> tuple[int, dict[str, Any]]:
    """Run the suite in this process; return pytest's exit code and the report data.

    ``options`` are the run's options by name (``run.options.OPTIONS``: ``impl``, ``cmd``,
    ``mcp``, ``mcp_mapping``, ``manifest``, ``expectations``, ``strict``, ``tools``,
    ``features``, ``clauses``, ``call_timeout`` ...); an unknown name is an error.
    ``report_json`` is the ``report`` option. ``pytest_summary=False`` leaves the conformance
    section out of pytest's own output (the ``agenttools`` command prints it after pytest's last
    line instead).
    """
    from pytest_agenttools.cli.runner import SuiteRun, run_in_process
    from pytest_agenttools.run.options import option

    for name in options:
        try:
            option(name)
        except KeyError as exc:
            raise TypeError(f"run_conformance: {exc.args[0]}") from None
    if report_json is not None:
        options["report"] = report_json
    run = SuiteRun.from_options(options, extra=tuple(pytest_args), pytest_summary=pytest_summary)
    return run_in_process(run)


#: pytest arguments by which the caller already chose how the run is spread (or that need one
#: process: a debugger)
CHOSEN_WORKERS = ("-n", "--numprocesses", "--dist", "-d", "--pdb", "--trace")


def default_workers(ns: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    """``-n auto`` unless the run is to be serial: ``--serial``, a few named clauses
    (``--clauses``: starting workers would cost more than it saves), xdist blocked or absent,
    or the caller's own pytest arguments already choose (``-- -n 0``, ``-- --pdb``)."""
    import importlib.util

    if ns.serial or ns.clauses or importlib.util.find_spec("xdist") is None:
        return []
    for arg in extra:
        if arg in CHOSEN_WORKERS or arg.startswith(("-n", "--numprocesses=", "--dist=")):
            return []
        if arg.replace(" ", "") in ("-pno:xdist", "-pno:xdist.plugin"):
            return []
    for index, arg in enumerate(extra[:-1]):
        if arg == "-p" and extra[index + 1] in ("no:xdist", "no:xdist.plugin"):
            return []
    return ["-n", "auto"]


#: seconds between two progress lines of ``agenttools run`` (``-- --agenttools-progress=0``: none)
PROGRESS_S = 10.0


def default_traceback(ns: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    """``--tb=short`` (each failure cut to its frames' lines and the assertion; the kit's own
    helpers hide their frames) unless ``-v`` asks for everything or the arguments after ``--``
    choose (``-- --tb=long``)."""
    if ns.verbose or any(arg == "--tb" or arg.startswith("--tb=") for arg in extra):
        return []
    return ["--tb=short"]


def _fail(command: str, message: str, code: int = 2) -> int:
    print(f"agenttools {command}: {message}", file=sys.stderr)
    return code


def _check_selection(ns: argparse.Namespace) -> str | None:
    """A message naming what is unknown in ``--tools`` / ``--features``, or None."""
    if not (ns.tools or ns.features or ns.clauses):
        return None  # nothing to check: the spec is loaded once, by the run's session
    from pytest_agenttools.run.selection import split_list
    from pytest_agenttools.spec.clauses import load

    spec = load()
    tools = sorted({c.tool for c in spec.clauses})
    unknown = sorted(split_list(ns.tools) - set(tools))
    if unknown:
        hint = ""
        if "robustness" in unknown:
            hint = (
                "; the ROBUST-* clauses (the level 'robust') are --tools robust, and "
                "--features robustness chooses the other tools' clauses tagged robustness"
            )
        return (
            f"--tools: unknown tool(s) {', '.join(unknown)}; the tools are {', '.join(tools)}"
            + hint
        )
    tags = {f for c in spec.clauses for f in (*c.features, *c.tags)} | set(spec.features)
    unknown = sorted(split_list(ns.features) - tags)
    if unknown:
        return (
            f"--features: unknown feature or tag(s) {', '.join(unknown)}; choose from "
            f"{', '.join(sorted(tags))}"
        )
    if ns.clauses:
        from pytest_agenttools.run.selection import unknown_clauses

        problem = unknown_clauses(spec, split_list(ns.clauses))
        if problem:
            return f"--clauses: {problem}"
    return None


def _run(ns: argparse.Namespace) -> int:
    extra: list[str] = ns.pytest_args
    problem = _check_selection(ns)
    if problem:
        return _fail("run", problem)
    from pytest_agenttools.run.options import OPTIONS

    options = {row.name: getattr(ns, row.name) for row in OPTIONS if row.run_flag}
    options.update(progress=PROGRESS_S, summary_first=True)
    pytest_args = [*default_workers(ns, extra), *default_traceback(ns, extra), *extra]
    code, report = run_conformance(pytest_args=pytest_args, pytest_summary=False, **options)
    if report:
        from pytest_agenttools.report.render import Run, terminal_lines
        from pytest_agenttools.spec.clauses import load

        run = Run.from_report(report, load(), ns.report or "")
        print("\n".join(terminal_lines(run, verbose=ns.verbose)))
        if ns.report:
            print(f"  report written to {ns.report}")
    summary = report.get("summary", {})
    clean = report and summary.get("failed", 0) == 0 and summary.get("error", 0) == 0
    if code == 0 and clean:
        return 0
    return code or 1


def _serve(ns: argparse.Namespace) -> int:
    if ns.root is not None and not ns.mcp:
        raise SystemExit(
            "agenttools serve: --root is for --mcp (MCP has no working directory); over stdio "
            "every call carries its own cwd"
        )
    from pytest_agenttools.implementations.reference.private_stdout import private_stdout

    tools = None
    # The protocol's stdout is private from here on: what an implementation prints (when it is
    # imported, made or called) goes to stderr. Over MCP the SDK's stdio server diverts fd 1
    # itself while it serves.
    with private_stdout() as protocol:
        if ns.impl:
            from pytest_agenttools.connect.base import AdapterError
            from pytest_agenttools.connect.inprocess import load_factory

            try:
                tools = load_factory(ns.impl)()
            except AdapterError as exc:
                raise SystemExit(f"agenttools serve: {exc}") from None
        if not ns.mcp:
            from pytest_agenttools.implementations.reference.server import serve

            return serve(
                stdout=protocol,
                tools=tools,
                exit_process=True,
                max_line_bytes=ns.max_line_bytes,
            )
    from pytest_agenttools.implementations.reference.mcp_server import serve_mcp

    return serve_mcp(tools, root=ns.root)


def _load_reports(paths: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    reports = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"agenttools: cannot read report {path!r}: {exc}") from None
        if not isinstance(data, dict) or "clauses" not in data:
            raise SystemExit(
                f"agenttools: {path!r} is not a conformance report (no 'clauses'); make one with "
                "`agenttools run --report-json FILE`"
            )
        reports.append((path, data))
    return reports


def _report(ns: argparse.Namespace) -> int:
    from pytest_agenttools.report.render import runs_from_reports, to_html, to_markdown
    from pytest_agenttools.spec.clauses import load

    spec = load()
    reports = _load_reports(ns.reports)
    if ns.json and not ns.merge:
        return _fail("report", "--json writes the merged report: give it with --merge")
    if ns.diff:
        if ns.merge or len(reports) != 2:
            return _fail("report", "--diff compares two reports: OLD.json NEW.json")
        from pytest_agenttools.report.diff import changes, diff_lines

        print("\n".join(diff_lines(spec, reports[0], reports[1])))
        return 1 if any(c.regression for c in changes(spec, reports[0][1], reports[1][1])) else 0
    code = 0
    if ns.merge:
        from pytest_agenttools.report.merge import MergeError, merge

        try:
            merged = merge(reports, spec)
        except MergeError as exc:
            return _fail("report", f"cannot merge: {exc}")
        if ns.json:
            with open(ns.json, "w", encoding="utf-8") as handle:
                json.dump(merged, handle, indent=2, ensure_ascii=False)
                handle.write("\n")
        summary = merged["summary"]
        failed = summary.get("failed", 0) + summary.get("error", 0)
        code = 1 if failed or (ns.strict and merged["problems"]) else 0
        for problem in merged["problems"]:
            print(f"agenttools report: {problem}", file=sys.stderr)
        reports = [(ns.json or "merged", merged)]
    runs = runs_from_reports(spec, reports)
    if not ns.html and not ns.markdown:
        if not (ns.merge and ns.json):
            sys.stdout.write(to_markdown(runs))
        else:
            print(f"agenttools report: merged {len(ns.reports)} shards into {ns.json}")
        return code
    written = [f"merged report {ns.json}"] if ns.merge and ns.json else []
    for path, text, what in (
        (ns.html, to_html, "HTML page"),
        (ns.markdown, to_markdown, "Markdown summary"),
    ):
        if path:
            Path(path).write_text(text(runs), encoding="utf-8")
            written.append(f"{what} {path}")
    count = f"{len(ns.reports)} report{'s' if len(ns.reports) != 1 else ''}"
    print(f"agenttools report: wrote {' and '.join(written)} ({count})")
    return code


def _baseline(ns: argparse.Namespace) -> int:
    from pytest_agenttools.run.baseline import prune, render, render_baseline, write_atomically

    (_, report), *_ = _load_reports([ns.report])
    if not ns.prune:
        sys.stdout.write(render_baseline(report))
        return 0
    import pytest

    from pytest_agenttools.run.expectations import load

    try:
        existing = load(ns.prune)
    except pytest.UsageError as exc:
        return _fail("baseline", str(exc))
    merged = prune(report, existing)
    write_atomically(ns.prune, render(report, merged.entries))
    print(merged.describe(ns.prune))
    return 0


def _selfcheck(ns: argparse.Namespace) -> int:
    from pytest_agenttools.cli.selfcheck import (
        alternative_implementations,
        broken_implementations,
        render,
        render_alternatives,
        render_longest,
        run_both,
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
    if ns.alternatives_only or (ns.only and not broken):
        broken = []
    elif broken is None:
        broken = broken_implementations()
    if ns.broken_only or (ns.only and not alternatives):
        alternatives = []
    elif alternatives is None:
        alternatives = alternative_implementations()
    total = len(broken) + len(alternatives) * (2 if ns.stdio else 1)
    print(f"agenttools selfcheck: {total} runs; each verdict as it lands", flush=True)
    kills, rows = run_both(
        broken,
        alternatives,
        stdio=ns.stdio,
        jobs=ns.jobs,
        progress=lambda line: print(f"  {line}", flush=True),
    )
    if kills:
        print("\n".join(render(kills)))
    if rows:
        print("\n".join(render_alternatives(rows)))
    if kills or rows:
        print(render_longest(kills, rows))
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
    from dataclasses import replace

    from pytest_agenttools.spec.clauses import (
        clause_test_index,
        implementation_index,
        load,
        render_markdown,
    )

    spec = load()
    if ns.tool:
        tools = list(dict.fromkeys(c.tool for c in spec.clauses))
        if ns.tool not in tools:
            return _fail("clauses", f"unknown tool {ns.tool!r}; the tools are {', '.join(tools)}")
        spec = replace(
            spec,
            clauses=tuple(c for c in spec.clauses if c.tool == ns.tool),
            sections={k: v for k, v in spec.sections.items() if k == ns.tool},
            features={k: v for k, v in spec.features.items() if v.tool == ns.tool},
            limits={k: v for k, v in spec.limits.items() if v.tool == ns.tool},
        )
    if ns.markdown:
        from pytest_agenttools.cli.selfcheck import caught_index

        sys.stdout.write(
            render_markdown(spec, clause_test_index(), implementation_index(), caught_index())
        )
        return 0
    listed = [c for c in spec.clauses if ns.retired or not c.retired]
    for clause in listed:
        needs = f"  [{', '.join(clause.features)}]" if clause.features else ""
        retired = " (retired)" if clause.retired else ""
        print(f"{clause.id:18} {clause.level:6} {clause.title}{retired}{needs}")
    left_out = sum(1 for c in spec.clauses if c.retired) if not ns.retired else 0
    if left_out:
        print(f"({left_out} retired clauses left out: --retired lists them too)")
    return 0


def _plain(value: Any) -> Any:
    """An observation (dataclasses, tuples) as JSON data, without the raw copy it keeps."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name != "raw"
        }
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


#: the keys of one ``agenttools call --session`` input line
SESSION_KEYS = ("tool", "arguments", "cwd", "env", "timeout")


def _one_call(adapter: Any, manifest: Any, call: Any, timeout: float) -> tuple[dict[str, Any], int]:
    """Send ``call``; the JSON answer ``call`` prints for it, and 1 on a violation (else 0)."""
    from pytest_agenttools.connect.base import AdapterError, ProtocolError, deadline_for
    from pytest_agenttools.harness.contract import ContractViolation
    from pytest_agenttools.harness.observations import ALWAYS_OBSERVED

    out: dict[str, Any] = {}
    if not manifest.has_tool(call.tool):
        out["note"] = (
            f"{manifest.name} does not declare {call.tool!r} (it declares "
            f"{', '.join(sorted(manifest.tools)) or 'no tools'}); sent anyway"
        )
    try:
        out["call"] = call.to_wire()
        result = adapter.call(call, timeout=deadline_for(call, timeout))
    except ProtocolError as exc:
        out["protocol_error"] = {"code": exc.code, "message": str(exc)}
        return out, 1
    except (AdapterError, ContractViolation) as exc:
        out["violation"] = str(exc)
        return out, 1
    out["result"] = result.to_wire()
    required = not result.is_error or call.tool in ALWAYS_OBSERVED
    try:
        out["observation"] = _plain(result.observation)
    except ContractViolation as exc:
        if required:
            out["violation"] = str(exc)
            return out, 1
        out["observation"] = None
        out["note"] = f"an error result of {call.tool} needs no observation"
    return out, 0


def _session_call(line: str, cwd: str, timeout: float) -> tuple[Any, float]:
    """One ``--session`` input line as (ToolCall, timeout); ValueError says what is wrong."""
    from pytest_agenttools.harness.contract import ToolCall

    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(
            'a line must be a JSON object like {"tool": "read", "arguments": {"path": "a.txt"}}'
        )
    unknown = sorted(set(data) - set(SESSION_KEYS))
    if unknown:
        raise ValueError(f"unknown key(s) {unknown}; a line takes {', '.join(SESSION_KEYS)}")
    tool = data.get("tool")
    if not isinstance(tool, str) or not tool:
        raise ValueError('"tool" (a canonical tool name: read, write, ...) is required')
    where = data.get("cwd", cwd)
    if not isinstance(where, str) or not where:
        raise ValueError('"cwd" must be a directory (a string)')
    where = os.path.abspath(os.path.join(cwd, where))
    if not os.path.isdir(where):
        raise ValueError(f'"cwd" {where}: no such directory')
    env = data.get("env")
    if env is not None and (
        not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values())
    ):
        raise ValueError('"env" must be an object of strings')
    seconds = data.get("timeout", timeout)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
        raise ValueError('"timeout" must be a number of seconds above 0')
    return ToolCall(tool, data.get("arguments", {}), where, env), float(seconds)


def _session(adapter: Any, manifest: Any, cwd: str, ns: argparse.Namespace, out: Any) -> int:
    """Calls from stdin, one JSON object a line; one JSON answer a line, in order, until EOF."""
    code = 0
    print(
        f"agenttools call --session: {adapter.describe()} ({manifest.name} {manifest.version}) "
        'is up; send one call a line ({"tool": ..., "arguments": {...}}); end with EOF',
        file=sys.stderr,
        flush=True,
    )
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            call, timeout = _session_call(line, cwd, ns.timeout)
        except ValueError as exc:
            answer: dict[str, Any] = {"line": number, "error": f"line {number}: {exc}"}
            failed = 1
        else:
            body, failed = _one_call(adapter, manifest, call, timeout)
            answer = {"line": number, **body}
        code = code or failed
        out.write(json.dumps(answer, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
        out.flush()
    return code


def _call(ns: argparse.Namespace) -> int:
    """One call (or, with --session, a call a line) through the adapter ``run`` would use;
    print what came back as JSON."""
    from pytest_agenttools.connect.base import AdapterError, Target
    from pytest_agenttools.connect.kinds import build_adapter
    from pytest_agenttools.harness.contract import ContractViolation, ToolCall
    from pytest_agenttools.implementations.reference.private_stdout import private_stdout

    if ns.session and (ns.tool is not None or ns.arguments is not None):
        return _fail("call", "--session reads its calls from stdin: give no TOOL or ARGUMENTS")
    if not ns.session and (ns.tool is None or ns.arguments is None):
        return _fail("call", "give TOOL and ARGUMENTS (a JSON object), or --session")
    arguments: Any = None
    if not ns.session:
        try:
            arguments = json.loads(ns.arguments)
        except ValueError as exc:
            return _fail("call", f"the arguments are not JSON ({exc}): {ns.arguments!r}")
    cwd = os.path.abspath(ns.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        return _fail("call", f"--cwd {cwd}: no such directory")
    override = None
    if ns.manifest:
        import tomllib

        try:
            override = tomllib.loads(Path(ns.manifest).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            return _fail("call", f"--manifest {ns.manifest}: {exc}")
    target = Target(
        impl=ns.impl,
        cmd=ns.cmd,
        mcp=ns.mcp,
        mcp_mapping=ns.mcp_mapping,
        manifest=override,
        call_timeout=ns.timeout,
    )
    # stdout is the answer's: what the implementation (or a mapping script) prints while it is
    # built, started, called and closed goes to stderr
    with private_stdout() as stdout:
        try:
            adapter: Any = build_adapter(target.to_settings())
        except AdapterError as exc:
            return _fail("call", str(exc))
        out: dict[str, Any] = {"adapter": adapter.describe()}
        try:
            try:
                manifest = adapter.start()
            except (AdapterError, ContractViolation) as exc:
                out["violation"] = str(exc)
                code = 1
            else:
                if ns.session:
                    return _session(adapter, manifest, cwd, ns, stdout)
                out["implementation"] = f"{manifest.name} {manifest.version}"
                body, code = _one_call(
                    adapter, manifest, ToolCall(ns.tool, arguments, cwd), ns.timeout
                )
                out.update(body)
        finally:
            adapter.close()
        text = json.dumps(out, indent=2, ensure_ascii=False, default=str)
        stdout.write(text.encode("utf-8") + b"\n")
        return code


def _init(ns: argparse.Namespace) -> int:
    from pytest_agenttools.cli.scaffold import (
        SKELETONS,
        ScaffoldError,
        adapter_name,
        write_skeleton,
    )

    directory = Path(ns.directory)
    try:
        written = write_skeleton(ns.lang, directory, ns.name)
    except (ScaffoldError, OSError) as exc:
        return _fail("init", str(exc))
    name = ns.name or adapter_name(directory)
    print(f"agenttools init: wrote a {ns.lang} adapter skeleton for {name}:")
    for path in written:
        print(f"  {path}")
    print("Run it (it declares no tools yet, so every clause is 'not run' and the run passes):")
    print(f"  cd {directory}")
    for command in SKELETONS[ns.lang].commands(name):
        print(f"  {command}")
    readme = directory / "README.md"
    print(f"Then follow {readme}: implement one tool, declare it, run its clauses.")
    return 0


def _table_options(parser: argparse.ArgumentParser, *, call: bool = False) -> None:
    """The options of the table (``run.options.OPTIONS``) that this command takes: each row
    with a ``run_flag`` for ``run``, the rows marked ``call`` for ``call``; help from the row."""
    from pytest_agenttools.run.options import OPTIONS

    which = parser.add_mutually_exclusive_group()
    for row in OPTIONS:
        if not row.run_flag or (call and not row.call):
            continue
        target = which if row.chooses_implementation else parser
        help_text = f"{row.help} (pytest: {row.flag})"
        if row.kind == "bool":
            target.add_argument(row.run_flag, dest=row.name, action="store_true", help=help_text)
        else:
            kind = {"float": float, "int": int}.get(row.kind, str)
            target.add_argument(
                row.run_flag, dest=row.name, type=kind, metavar=row.metavar, help=help_text
            )


def _args_run(run: argparse.ArgumentParser) -> None:
    _table_options(run)
    run.add_argument(
        "--serial",
        action="store_true",
        help="run in this one process; by default the run is spread over the cores (pytest-xdist "
        "-n auto: a worker per core and as many again, most of the suite waits), except for "
        "--clauses or when the arguments after -- choose (-n N, --pdb)",
    )
    run.add_argument(
        "-v", "--verbose", action="store_true", help="list every clause, with failing assertions"
    )


def _args_call(call: argparse.ArgumentParser) -> None:
    call.add_argument(
        "tool", nargs="?", help="canonical tool name (read, write, edit, grep, glob, bash)"
    )
    call.add_argument(
        "arguments", nargs="?", help='the arguments as a JSON object, e.g. \'{"path": "a"}\''
    )
    call.add_argument(
        "--session",
        action="store_true",
        help="start the implementation once and read calls from stdin, one JSON object a line "
        '({"tool": "read", "arguments": {...}}, optional "cwd", "env", "timeout"); answer each '
        "with one JSON line, in order; EOF stops it",
    )
    _table_options(call, call=True)
    call.add_argument("--cwd", metavar="DIR", help="the call's working directory (default: .)")
    call.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="seconds to wait (default 60)"
    )


def _args_init(init: argparse.ArgumentParser) -> None:
    init.add_argument("--lang", required=True, choices=("python", "node", "go"))
    init.add_argument("directory", metavar="DIR", help="where to write (created if missing)")
    init.add_argument("--name", help="the implementation's name (default: from DIR)")


def _args_serve(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--impl",
        metavar="FACTORY",
        help="serve this in-process factory 'package.module:factory' instead",
    )
    serve.add_argument(
        "--mcp",
        action="store_true",
        help="speak MCP (the `mcp` extra) instead of the agenttools protocol: the seven tools "
        "under their canonical names (docs/mcp-adapter.md, The reference over MCP)",
    )
    serve.add_argument(
        "--root",
        metavar="DIR",
        help="with --mcp: the directory relative paths resolve against and commands run in "
        "(default: where the server starts); the kit starts one per workspace: --root {cwd}",
    )
    serve.add_argument(
        "--max-line-bytes",
        type=int,
        default=64 * 1024 * 1024,
        metavar="N",
        help="longest request line read whole; longer ones are answered -32600 (default 64 MiB)",
    )


def _args_report(report: argparse.ArgumentParser) -> None:
    report.add_argument("reports", nargs="+", metavar="REPORT.json")
    report.add_argument("--html", metavar="FILE", help="write a self-contained HTML page")
    report.add_argument(
        "--markdown", metavar="FILE", help="write Markdown (default without --html: stdout)"
    )
    report.add_argument(
        "--merge",
        action="store_true",
        help="the reports are the shards of one run (`agenttools run --shard K/N`): join them "
        "into the report of the whole run, checked to be every shard once; exits 1 on a "
        "failure, as the whole run would",
    )
    report.add_argument("--json", metavar="FILE", help="with --merge: write the merged report")
    report.add_argument(
        "--strict",
        action="store_true",
        help="with --merge: also exit 1 on stale or unmatched expectations (judged across the "
        "shards)",
    )
    report.add_argument(
        "--diff",
        action="store_true",
        help="OLD.json NEW.json: print the clauses whose verdict changed and the levels that "
        "moved; exits 1 when a clause that passed no longer does",
    )


def _args_baseline(baseline: argparse.ArgumentParser) -> None:
    baseline.add_argument("--report", required=True, metavar="REPORT.json")
    baseline.add_argument(
        "--prune",
        metavar="FILE",
        help="rewrite this expectations file from the report: keep the reasons of entries "
        "that still apply, drop entries whose tests pass now, add new failures with TODO",
    )


def _args_selfcheck(selfcheck: argparse.ArgumentParser) -> None:
    selfcheck.add_argument(
        "only", nargs="*", help="broken or alternative implementations by name (default: all)"
    )
    side = selfcheck.add_mutually_exclusive_group()
    side.add_argument("--broken-only", action="store_true", help="only the broken ones")
    side.add_argument("--alternatives-only", action="store_true", help="only the alternatives")
    selfcheck.add_argument(
        "--stdio", action="store_true", help="also serve each alternative over stdio"
    )
    selfcheck.add_argument(
        "--jobs",
        type=int,
        help="runs at once (default: four per core, at most 32; most of a run waits on "
        "timeouts and kill graces)",
    )
    selfcheck.add_argument("--json", metavar="FILE", help="write the kill matrix as JSON")


def _args_clauses(clauses: argparse.ArgumentParser) -> None:
    clauses.add_argument("--tool", help="only this tool's clauses")
    clauses.add_argument(
        "--retired", action="store_true", help="list the retired clauses too, marked so"
    )
    clauses.add_argument(
        "--markdown", action="store_true", help="print docs/spec.md (with --tool: that part)"
    )


@dataclass(frozen=True)
class Command:
    """One ``agenttools`` command: its name, its arguments, what runs it, and its help."""

    name: str
    arguments: Callable[[argparse.ArgumentParser], None]
    handle: Callable[[argparse.Namespace], int]
    help: str
    description: str | None = None


COMMANDS: tuple[Command, ...] = (
    Command(
        "run",
        _args_run,
        _run,
        help="run the conformance suite (default: against the bundled reference)",
        description="Run the shipped conformance suite against an implementation: the bundled "
        "reference in process unless --impl, --cmd or --mcp names another. Prints the "
        "conformance levels (MUST and SHOULD clauses passed, failed, failed as expected, not "
        "run, and why) and every clause that did not pass; -v lists every clause. Exits 0 only "
        "when every test passed or matched an expectation. Arguments after -- go to pytest "
        "(e.g. -- -n auto, -- -k bom).",
    ),
    Command(
        "call",
        _args_call,
        _call,
        help="send one tool call (or, with --session, a call a line from stdin) and print the "
        "raw result, for debugging an adapter by hand",
        description="Start the implementation as `run` would, send one call, and print JSON: "
        "the call, the result the adapter returned, and the parsed observation or the "
        "contract violation. Exits 1 on a violation or a protocol error. With --session the "
        "implementation is started once and every line of stdin is a call, answered by one "
        "JSON line in order; EOF stops it.",
    ),
    Command(
        "init",
        _args_init,
        _init,
        help="write a runnable adapter skeleton (python, node or go)",
        description="Write an adapter skeleton into DIR: a server speaking agenttools/2 over "
        "stdio (node, go) or an in-process factory (python), with a manifest, an expectations "
        "file and a README of next steps. It declares no tools, so its first run passes.",
    ),
    Command(
        "serve",
        _args_serve,
        _serve,
        help="serve the reference (or any in-process implementation) over stdio, or as an MCP "
        "tool server (--mcp)",
    ),
    Command(
        "report",
        _args_report,
        _report,
        help="render JSON reports: a Markdown summary or a page comparing runs; merge the "
        "shards of a run (--merge); what changed between two (--diff)",
    ),
    Command(
        "baseline",
        _args_baseline,
        _baseline,
        help="an expectations file covering a report's current failures",
    ),
    Command(
        "selfcheck",
        _args_selfcheck,
        _selfcheck,
        help="run the suite against the shipped broken implementations (each must fail) and "
        "alternative correct implementations (each must pass)",
    ),
    Command("clauses", _args_clauses, _clauses, help="list the spec clauses"),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenttools",
        description="Conformance kit for the file and shell tools of coding agents.",
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        sub = commands.add_parser(command.name, help=command.help, description=command.description)
        command.arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1 :]
    parser = build_parser()
    ns = parser.parse_args(args)
    if ns.command in ("run", "call") and bool(ns.mcp) != bool(ns.mcp_mapping):
        parser.error("--mcp and --mcp-mapping go together (see docs/mcp-adapter.md)")
    if extra and ns.command != "run":
        parser.error(f"only `run` passes arguments after -- to pytest ({ns.command} got {extra})")
    ns.pytest_args = extra
    (command,) = [c for c in COMMANDS if c.name == ns.command]
    return command.handle(ns)


if __name__ == "__main__":
    sys.exit(main())
