"""Every rendering of a conformance report, from one data object: the JSON report.

``Run.from_report`` reads one JSON report (``agenttools-report/2``, written by
``--agenttools-report``) with the spec; ``terminal_lines`` gives the run in a few lines (the
``agenttools run`` summary and pytest's terminal section), ``to_markdown`` a summary for CI job
pages, ``to_html`` one self-contained page comparing runs (no network, no external assets:
inline CSS and a few lines of inline script for the filters).

Every form shows, per conformance level, how many MUST and SHOULD clauses passed, failed, failed
as expected, were blocked (not judged: a precondition another clause owns did not hold) and did
not run, and why they did not run: a partial run never looks complete.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.report.data import (
    assertion_of,
    compute_levels,
    undeclared_tools,
    why_not_run,
)
from pytest_agenttools.spec.clauses import Clause, Spec

#: the level counts in the order every form shows them, with their words
LEVEL_COUNTS = (
    ("passed", "passed"),
    ("failed", "failed"),
    ("expected", "failed as expected"),
    ("blocked", "blocked"),
    ("not_run", "not run"),
)
#: what every form says of a quick run
QUICK_NOTE = (
    "a first, provisional verdict; no conformance level is awarded, and the tests it left out "
    "are 'not run in --quick'. Run without --quick for the full verdict"
)
#: a clause verdict as the terminal shows it
MARKS = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "xfailed": "xfail",
    "xpassed": "XPASS",
    "blocked": "BLOCK",
    "skipped": "skip",
    "absent": "-",
}
#: a test outcome in a tally, in this order
TALLY = ("failed", "error", "xpassed", "xfailed", "blocked", "passed", "skipped")
#: verdicts that a person must look at
NOT_PASSED = ("failed", "error", "xpassed", "xfailed", "blocked")
INLINE_CODE = re.compile(r"`([^`\n]+)`")


# --- the data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One JSON report, read for rendering."""

    spec: Spec
    implementation: Mapping[str, Any]
    verdicts: Mapping[str, str]
    tests: Mapping[str, tuple[Mapping[str, Any], ...]]
    not_run: Mapping[str, str]
    levels: Mapping[str, Any]
    undeclared_tools: Mapping[str, int]
    summary: Mapping[str, int]
    problems: tuple[str, ...] = ()
    source: str = ""
    started: str = ""
    #: a quick run (``--quick``): provisional verdicts, no conformance level awarded
    quick: bool = False

    @classmethod
    def from_report(cls, data: Mapping[str, Any], spec: Spec, source: str = "") -> Run:
        """Read a report; one without ``levels`` (an older format) gets them computed."""
        impl = data.get("implementation") or {}
        verdicts = dict(data.get("clauses") or {})
        not_run = dict(data.get("not_run") or {})
        tests: dict[str, list[Mapping[str, Any]]] = {}
        for test in data.get("tests") or ():
            if test.get("clause"):
                tests.setdefault(str(test["clause"]), []).append(test)
        quick = bool(data.get("quick"))
        levels = data.get("levels") or compute_levels(
            spec, verdicts, not_run, impl, provisional=quick
        )
        undeclared = data.get("undeclared_tools")
        if undeclared is None:
            undeclared = undeclared_tools(spec, impl)
        return cls(
            spec=spec,
            implementation=impl,
            verdicts=verdicts,
            tests={k: tuple(v) for k, v in tests.items()},
            not_run=not_run,
            levels=levels,
            undeclared_tools=undeclared,
            summary=dict(data.get("summary") or {}),
            problems=tuple(str(p) for p in data.get("problems") or ()),
            source=source,
            started=str(data.get("started") or ""),
            quick=quick,
        )

    @property
    def name(self) -> str:
        impl = self.implementation
        return f"{impl.get('name', '?')} {impl.get('version', '')}".strip()

    @property
    def adapter_kind(self) -> str:
        adapter = str(self.implementation.get("adapter", ""))
        for prefix, kind in (("in-process", "in-process"), ("stdio", "stdio"), ("MCP", "MCP")):
            if adapter.startswith(prefix):
                return kind
        return adapter.split(" ", 1)[0] if adapter else "?"

    @property
    def detail(self) -> str:
        """How this run differs from another of the same implementation."""
        parts = [self.adapter_kind]
        if self.quick:
            parts.append("quick run")
        if self.source:
            parts.append(os.path.basename(self.source))
        if self.started:
            parts.append(self.started.replace("T", " ").replace("Z", " UTC"))
        return " · ".join(parts)

    def verdict(self, clause_id: str) -> str:
        """The clause's verdict; ``skipped`` when it did not run (with a reason in ``not_run``),
        ``absent`` when it is not part of this implementation (a tool it does not declare)."""
        if clause_id in self.verdicts:
            return self.verdicts[clause_id]
        return "skipped" if clause_id in self.not_run else "absent"

    def reason(self, clause_id: str) -> str:
        if clause_id in self.not_run:
            return why_not_run(self.not_run[clause_id])
        clause = self.spec.by_id().get(clause_id)
        if clause is not None and clause.tool in self.undeclared_tools:
            return f"tool {clause.tool} is not declared"
        return "not in this run"

    def tally(self, clause_id: str) -> str:
        """The clause's tests counted by outcome: ``3 tests: 2 failed, 1 passed``."""
        outcomes = [str(t.get("outcome")) for t in self.tests.get(clause_id, ())]
        if not outcomes:
            return "no test"
        counts = [f"{outcomes.count(o)} {o}" for o in TALLY if o in outcomes]
        noun = "test" if len(outcomes) == 1 else "tests"
        return f"{len(outcomes)} {noun}: " + ", ".join(counts)

    def failing_tests(self, clause_id: str) -> list[Mapping[str, Any]]:
        return [t for t in self.tests.get(clause_id, ()) if t.get("outcome") in NOT_PASSED]

    def blocked_by(self, clause_id: str) -> str:
        """``blocked by READ-OFF-01: the reason`` for a blocked clause (its first blocked test)."""
        for test in self.tests.get(clause_id, ()):
            if test.get("outcome") == "blocked":
                return blocked_text(test)
        return "blocked"


def blocked_text(test: Mapping[str, Any]) -> str:
    """A blocked test's reason as one line: ``blocked by READ-OFF-01: ...``."""
    text = EXCEPTION_PREFIX.sub("", why_not_run(str(test.get("message") or "")))
    owner = test.get("blocked_by")
    if owner and not text.startswith("blocked by"):
        text = f"blocked by {owner}: {text}"
    return text


def assertion(test: Mapping[str, Any]) -> str:
    """The failing assertion of a test record (older reports: found in its message)."""
    found = str(test.get("assertion") or "")
    return found or assertion_of(str(test.get("message") or ""))


#: lines of pytest's and hypothesis's introspection that follow an assertion: how pytest found
#: its values, its diff hints, the generated arguments (object reprs, addresses)
INTROSPECTION = re.compile(
    r"^\s*(\+\s*where |\+\s*and |At index \d+ diff|Use -v to get|Full diff:|Failing test case:|"
    r"Falsifying example:|You can reproduce|Omitting \d+ identical)"
)
#: a Python default repr: ``<package.module.Name object at 0x7f...>``
OBJECT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-f]+>")
#: the exception type before a message: ``AssertionError: `` or a dotted
#: ``pytest_agenttools.harness.assertions.Blocked: ``
EXCEPTION_PREFIX = re.compile(
    r"^(?:[a-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Failed)|Blocked|Skipped|Failed): "
)


def readable(text: str, lines: int = 3) -> str:
    """A failing assertion as a person reads it: the test's own message (without the exception
    type), not pytest's introspection of it (``+ where 6 = WriteObservation(...)``, diff hints,
    hypothesis's generated arguments); an ``assert`` line only when there is no message, with
    object reprs shortened to their type (``<ToolClient>``)."""
    kept: list[str] = []
    for line in text.splitlines():
        if INTROSPECTION.match(line):
            break
        line = EXCEPTION_PREFIX.sub("", line.rstrip())
        if not line.strip():
            continue
        if line.lstrip().startswith("assert ") and kept:
            break  # the message said it; pytest's rewrite of the expression adds nothing
        kept.append(OBJECT_REPR.sub(r"<\1>", line))
    return "\n".join(kept[:lines])


def runs_from_reports(spec: Spec, reports: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Run]:
    """``(source, data)`` pairs as runs."""
    return [Run.from_report(data, spec, source) for source, data in reports]


def column_labels(runs: Sequence[Run]) -> list[tuple[str, str]]:
    """``(name, detail)`` for each run, distinct even for two runs of one implementation."""
    labels = [(run.name, run.detail) for run in runs]
    seen: dict[tuple[str, str], int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        if labels.count(label) > 1:
            out.append((label[0], f"{label[1]} · #{seen[label]}"))
        else:
            out.append(label)
    return out


def level_names(runs: Sequence[Run]) -> list[str]:
    names: dict[str, None] = {}
    for run in runs:
        names.update(dict.fromkeys(run.levels))
    return list(names)


def level_counts(entry: Mapping[str, Any], requirement: str) -> str:
    """``29 of 126 passed, 97 not run``: how many passed of how many, then only the counts that
    are not zero (a column of ``0 failed, 0 failed as expected, 0 blocked`` hides the one that
    matters)."""
    counts = entry.get(requirement) or {}
    total = sum(int(counts.get(k, 0)) for k, _ in LEVEL_COUNTS)
    shown = [f"{counts.get('passed', 0)} of {total} passed"]
    shown += [f"{counts.get(k, 0)} {word}" for k, word in LEVEL_COUNTS[1:] if counts.get(k, 0)]
    return ", ".join(shown)


def not_run_reasons(entry: Mapping[str, Any]) -> list[str]:
    """``97 not selected by this run (tools read)``, most frequent first."""
    reasons = entry.get("not_run_reasons") or {}
    ordered = sorted(reasons.items(), key=lambda kv: (-int(kv[1]), kv[0]))
    return [f"{count} {reason}" for reason, count in ordered]


def requirements(entry: Mapping[str, Any]) -> list[str]:
    """The requirement levels the level has clauses of (MUST when it has none)."""
    found = [r for r in ("MUST", "SHOULD") if sum((entry.get(r) or {}).values())]
    return found or ["MUST"]


def level_state(entry: Mapping[str, Any]) -> str:
    """``failed`` when a MUST clause failed, ``complete`` when every MUST clause passed (or
    failed as expected), else ``partial`` (a MUST clause blocked or not run): the class of the
    level's cell. A quick run's level is never complete: ``provisional`` at best."""
    must = entry.get("MUST") or {}
    if must.get("failed"):
        return "failed"
    if entry.get("provisional"):
        return "provisional"
    unjudged = must.get("not_run") or must.get("blocked")
    return "partial" if unjudged or not sum(must.values()) else "complete"


# --- the terminal -----------------------------------------------------------------------------


def level_lines(levels: Mapping[str, Any]) -> list[str]:
    """A table: per level, MUST and SHOULD clauses in all, passed, failed, failed as expected
    (xfailed), blocked and not run; then why clauses did not run, one line per reason."""
    if not levels:
        return ["no conformance level: no clause applies to the tools this implementation declares"]
    labels = {
        name: name if entry.get("declared", True) else f"{name} (not declared)"
        for name, entry in levels.items()
    }
    width = max(len("level"), *(len(label) for label in labels.values()))
    columns = ("passed", "failed", "xfailed", "blocked", "not run")
    keys = ("passed", "failed", "expected", "blocked", "not_run")
    block = "".join(f" {c:>7}" for c in columns)
    lines = [f"{'level':{width}}  {'MUST':>6}{block}   {'SHOULD':>6}{block}"]
    reasons: dict[str, dict[str, int]] = {}
    for name, entry in levels.items():
        row = f"{labels[name]:{width}}"
        for requirement in ("MUST", "SHOULD"):
            counts = entry.get(requirement) or {}
            total = sum(int(counts.get(k, 0)) for k in keys)
            gap = "  " if requirement == "MUST" else "   "
            row += f"{gap}{total:>6}" + "".join(f" {int(counts.get(k, 0)):>7}" for k in keys)
        lines.append(row.rstrip())
        for reason, count in (entry.get("not_run_reasons") or {}).items():
            reasons.setdefault(reason, {})[name] = int(count)
    for reason, where in sorted(reasons.items(), key=lambda kv: -sum(kv[1].values())):
        total = sum(where.values())
        if len(where) <= 3:
            scope = ", ".join(f"{n} in {level}" for level, n in where.items())
        else:
            scope = f"in {len(where)} levels"
        lines.append(f"not run: {total} clause{'s' if total != 1 else ''} ({scope}): {reason}")
    return lines


def terminal_lines(run: Run, *, verbose: bool = False, problems: bool = True) -> list[str]:
    """The run in a few lines: the conformance levels, then every clause that did not pass
    (``verbose``: every clause, with its failing assertions), then one line per tool the
    implementation does not declare."""
    impl = run.implementation
    lines = [f"agenttools: {run.name} via {impl.get('adapter', '?')}"]
    if run.quick:
        lines.append(f"  QUICK RUN (--quick): {QUICK_NOTE}")
    if not impl.get("name"):
        errors = [t for tests in run.tests.values() for t in tests if t.get("outcome") == "error"]
        if errors:  # the first error says why (a start-up failure fails every test alike)
            first = "".join(assertion(errors[0]).splitlines()[:1])
            lines.append("  " + re.sub(r"^(Failed: )?(agenttools: )?", "", first))
    lines += ["  " + line for line in level_lines(run.levels)]
    by_id = run.spec.by_id()
    for clause_id in sorted(set(run.verdicts) | set(run.not_run), key=_spec_order(run.spec)):
        clause = by_id.get(clause_id)
        if clause is not None and clause.tool in run.undeclared_tools:
            continue
        verdict = run.verdict(clause_id)
        if verdict not in NOT_PASSED and not verbose:
            continue
        level = clause.level if clause else "?"
        title = clause.title if clause else ""
        if verdict == "skipped":
            detail = f"not run: {run.reason(clause_id)}"
        elif verdict == "blocked":
            detail = run.blocked_by(clause_id)
        else:
            detail = run.tally(clause_id)
        mark = MARKS.get(verdict, verdict)
        lines.append(f"  {mark:5} {clause_id:18} {level:6} {title}  ({detail})")
        if verbose:
            for test in run.failing_tests(clause_id):
                said = readable(assertion(test), 1)
                lines.append(f"        {test.get('id', test.get('nodeid'))}: {said}")
    for tool, count in run.undeclared_tools.items():
        lines.append(f"  not run: tool {tool} is not declared ({count} clauses)")
    summary = run.summary
    lines.append(
        "  tests: "
        + ", ".join(
            f"{summary.get(k, 0)} {k}"
            for k in ("passed", "failed", "error", "blocked", "skipped", "xfailed", "xpassed")
        )
    )
    if problems:
        lines += [f"  ! {problem}" for problem in run.problems]
    if run.quick:
        lines.append("  provisional (quick run): no conformance level awarded")
    return lines


def _spec_order(spec: Spec) -> Any:
    order = {c.id: i for i, c in enumerate(spec.clauses)}
    return lambda clause_id: (order.get(clause_id, len(order)), clause_id)


# --- Markdown ---------------------------------------------------------------------------------

MD_MARKS = {
    "passed": "pass",
    "failed": "**FAIL**",
    "error": "**ERROR**",
    "xfailed": "xfail",
    "xpassed": "**XPASS**",
    "blocked": "blocked",
    "skipped": "not run",
    "absent": "-",
}


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_code(text: str) -> str:
    """Inline code in Markdown, whatever backticks the text holds."""
    text = _md_cell(" ".join(text.split()))
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def to_markdown(runs: Sequence[Run]) -> str:
    """A summary for a CI job page: levels with their counts and reasons, the clauses that did
    not pass, and the failing assertion of each failed test."""
    labels = column_labels(runs)
    spec = runs[0].spec if runs else None
    heads = [f"{name} ({detail})" for name, detail in labels]
    lines = [
        "## Agent tools conformance",
        "",
        "| level | " + " | ".join(_md_cell(h) for h in heads) + " |",
        "|---|" + "---|" * len(runs),
    ]
    quick_notes = [
        f"**Quick run** (`--quick`) of {_md_cell(f'{name} ({detail})')}: {QUICK_NOTE}."
        for run, (name, detail) in zip(runs, labels, strict=True)
        if run.quick
    ]
    for name in level_names(runs):
        cells = []
        for run in runs:
            entry = run.levels.get(name)
            if entry is None:
                cells.append("-")
                continue
            parts = [f"{r} {level_counts(entry, r)}" for r in requirements(entry)]
            if entry.get("provisional"):
                parts.insert(0, "provisional (quick run): no level awarded")
            reasons = not_run_reasons(entry)
            if reasons:
                parts.append("not run: " + "; ".join(reasons))
            cells.append("<br>".join(_md_cell(p) for p in parts))
        declared = all((run.levels.get(name) or {}).get("declared", True) for run in runs)
        label = name if declared else f"{name} (not declared)"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if quick_notes:
        lines += ["", *quick_notes]
    for run, (name, detail) in zip(runs, labels, strict=True):
        if run.undeclared_tools:
            tools = ", ".join(f"{t} ({n} clauses)" for t, n in run.undeclared_tools.items())
            lines += ["", f"{name} ({detail}) does not declare: {tools}."]
    if spec is None:
        return "\n".join(lines) + "\n"
    rows = []
    for clause in spec.active():
        verdicts = [run.verdict(clause.id) for run in runs]
        if any(v in NOT_PASSED for v in verdicts):
            marks = " | ".join(
                MD_MARKS.get(v, v)
                + (f" ({_md_cell(run.blocked_by(clause.id))})" if v == "blocked" else "")
                for run, v in zip(runs, verdicts, strict=True)
            )
            rows.append(f"| {clause.id} {_md_cell(clause.title)} | {clause.level} | {marks} |")
    if rows:
        lines += [
            "",
            "### Clauses that did not pass",
            "",
            "| clause | level | " + " | ".join(_md_cell(h) for h in heads) + " |",
            "|---|---|" + "---|" * len(runs),
            *rows,
        ]
    failures = []
    for run, (name, detail) in zip(runs, labels, strict=True):
        for clause in spec.active():
            for test in run.failing_tests(clause.id):
                if test.get("outcome") not in ("failed", "error"):
                    continue
                said = readable(assertion(test), 1).splitlines()[:1]
                failures.append(
                    f"- {name} ({detail}): **{clause.id}** `{test.get('id', test.get('nodeid'))}`"
                    + (f": {_md_code(said[0])}" if said else "")
                )
    if failures:
        lines += ["", "### Failures", "", *failures]
    problems = [
        (name, p) for run, (name, _) in zip(runs, labels, strict=True) for p in run.problems
    ]
    if problems:
        lines += ["", "### Expectations", ""] + [f"- {n}: {_md_cell(p)}" for n, p in problems]
    return "\n".join(lines) + "\n"


# --- HTML -------------------------------------------------------------------------------------

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f23}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.2em 0 .2em}
table{border-collapse:collapse;margin-top:.6em}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa;position:sticky;top:0}
th .run{font-weight:400;font-size:.8em;color:#57606a}
tr.tool td{background:#eaeef2;font-weight:600}
.passed{background:#dafbe1}.failed,.error{background:#ffd7d5}.xfailed{background:#fff1c2}
.xpassed{background:#ffd7d5}.skipped{background:#f6f8fa;color:#57606a}.absent{color:#8c959f}
.blocked{background:#eef1ff}
.level{font-size:.8em;font-weight:600;color:#57606a}
.why{display:block;font-size:.8em;color:#57606a;max-width:22em}
.assert{display:block;font:12px/1.35 ui-monospace,monospace;white-space:pre-wrap;max-width:48em;
margin:2px 0}
.verdict{font-weight:600}
code{font:12px ui-monospace,monospace;background:#eff1f3;padding:0 3px;border-radius:3px}
details summary{cursor:pointer;font-size:.85em;color:#57606a}
details pre{white-space:pre-wrap;max-width:60em;max-height:24em;overflow:auto;font-size:12px;
background:#f6f8fa;padding:6px;margin:4px 0}
.levels td{font-variant-numeric:tabular-nums}.levels .why{max-width:none}
.level-failed{background:#fff0ef}.level-complete{background:#f0fbf3}
.level-provisional{background:#fffbe6}.quick{background:#fff8c5;border:1px solid #d4a72c;
padding:6px 10px;max-width:60em}
table.matrix{table-layout:fixed;width:100%;min-width:calc(18em + var(--runs) * 16em)}
table.matrix col.name{width:18em}
table.matrix td,table.matrix th{overflow-wrap:anywhere}
table.matrix .assert,table.matrix details pre{max-width:100%}
.levels .req{font-weight:600;margin-right:.3em}.levels .zero{display:none}
.filters{margin:.8em 0}.filters label{margin-right:1em}
"""

SCRIPT = """
function applyFilters(){
  const tool=document.getElementById('tool').value, feat=document.getElementById('feature').value;
  let shown=0;
  document.querySelectorAll('tr.clause').forEach(function(row){
    const okTool=!tool||row.dataset.tool===tool;
    const feats=row.dataset.features?row.dataset.features.split(' '):[];
    const okFeat=!feat||(feat==='(none)'?feats.length===0:feats.indexOf(feat)>=0);
    const visible=okTool&&okFeat; row.style.display=visible?'':'none'; if(visible)shown++;
  });
  document.querySelectorAll('tr.tool').forEach(function(row){
    row.style.display=(!tool||row.dataset.tool===tool)?'':'none';
  });
  document.getElementById('shown').textContent=shown;
}
window.addEventListener('DOMContentLoaded',function(){
  const params=new URLSearchParams(location.hash.slice(1));
  if(params.get('tool'))document.getElementById('tool').value=params.get('tool');
  if(params.get('feature'))document.getElementById('feature').value=params.get('feature');
  document.getElementById('tool').addEventListener('change',applyFilters);
  document.getElementById('feature').addEventListener('change',applyFilters);
  applyFilters();
});
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def inline(text: str) -> str:
    """Escaped text with Markdown inline code (`x`) as ``<code>``."""
    out = []
    last = 0
    for found in INLINE_CODE.finditer(text):
        out.append(_e(text[last : found.start()]))
        out.append(f"<code>{_e(found.group(1))}</code>")
        last = found.end()
    out.append(_e(text[last:]))
    return "".join(out)


def _cell_html(run: Run, clause: Clause) -> str:
    verdict = run.verdict(clause.id)
    label = MARKS.get(verdict, verdict)
    if verdict == "passed":
        tally = _e(run.tally(clause.id))
        return f'<td class="passed" data-verdict="passed" title="{tally}">pass</td>'
    if verdict in ("skipped", "absent"):
        word = "not run" if verdict == "skipped" else "-"
        return (
            f'<td class="{verdict}" data-verdict="{verdict}">{word}'
            f'<span class="why">{_e(run.reason(clause.id))}</span></td>'
        )
    if verdict == "blocked":
        return (
            f'<td class="blocked" data-verdict="blocked">blocked'
            f'<span class="why">{_e(run.blocked_by(clause.id))}</span></td>'
        )
    failing = run.failing_tests(clause.id)
    first = failing[0] if failing else {}
    said = readable(assertion(first)).splitlines() if first else []
    head = (
        f'<span class="verdict">{label}</span> <span class="why">{_e(run.tally(clause.id))}</span>'
    )
    if said:
        head += f'<span class="assert">{_e(chr(10).join(said))}</span>'
    parts = [f"<p><b>{_e(clause.id)}</b> ({clause.level}): {inline(clause.text)}</p>"]
    for test in failing:
        parts.append(
            f"<p><code>{_e(test.get('id', test.get('nodeid')))}</code>: "
            f"{_e(test.get('outcome'))}</p>"
        )
        if test.get("message"):
            parts.append(f"<pre>{_e(str(test['message'])[-3000:])}</pre>")
    return (
        f'<td class="{verdict}" data-verdict="{verdict}">{head}<details>'
        f"<summary>clause and full output</summary>{''.join(parts)}</details></td>"
    )


def _level_cell(run: Run, name: str) -> str:
    entry = run.levels.get(name)
    if entry is None:
        return '<td class="absent">-</td>'
    rows = []
    for requirement in requirements(entry):
        counts = entry.get(requirement) or {}
        total = sum(int(counts.get(k, 0)) for k, _ in LEVEL_COUNTS)
        shown = [
            f'<span data-k="passed">{int(counts.get("passed", 0))}</span> of '
            f'<span data-k="total">{total}</span> passed'
        ]
        # every count is in the page (for scripts); a zero is not shown (a column of zeros
        # hides the count that matters)
        shown += [
            f'<span class="{"count zero" if not counts.get(k) else "count"}">, '
            f'<span data-k="{k}">{int(counts.get(k, 0))}</span> {word}</span>'
            for k, word in LEVEL_COUNTS[1:]
        ]
        numbers = "".join(shown)
        rows.append(
            f'<div class="{requirement.lower()}"><span class="req">{requirement}</span>'
            f"{numbers}</div>"
        )
    reasons = not_run_reasons(entry)
    if reasons:
        rows.append(f'<span class="why">not run: {_e("; ".join(reasons))}</span>')
    if entry.get("provisional"):
        rows.insert(0, '<div class="req">provisional (quick run): no level awarded</div>')
    state = level_state(entry)
    return f'<td class="level-{state}" data-level="{_e(name)}">{"".join(rows)}</td>'


def to_html(runs: Sequence[Run], title: str = "Agent tools conformance") -> str:
    """One self-contained page: the levels of every run side by side, then every clause."""
    if not runs:
        raise ValueError("no report to render")
    spec = runs[0].spec
    labels = column_labels(runs)
    head = "".join(
        f'<th data-run="{i}">{_e(name)}<br><span class="run">{_e(detail)}</span></th>'
        for i, (name, detail) in enumerate(labels)
    )
    level_rows = "".join(
        f"<tr><td><b>{_e(name)}</b></td>{''.join(_level_cell(run, name) for run in runs)}</tr>"
        for name in level_names(runs)
    )
    notes = []
    quick = [
        f'<p class="quick"><b>Quick run</b> (<code>--quick</code>) of {_e(name)} ({_e(detail)}): '
        f"{_e(QUICK_NOTE)}.</p>"
        for run, (name, detail) in zip(runs, labels, strict=True)
        if run.quick
    ]
    for run, (name, detail) in zip(runs, labels, strict=True):
        who = f"{_e(name)} ({_e(detail)})"
        if run.undeclared_tools:
            names = ", ".join(f"{_e(t)} ({n} clauses)" for t, n in run.undeclared_tools.items())
            notes.append(f"<li>{who} does not declare: {names}</li>")
        notes += [f"<li>{who}: {_e(p)}</li>" for p in run.problems]
    tools = list(dict.fromkeys(c.tool for c in spec.active()))
    features = sorted({f for c in spec.active() for f in c.features})
    tool_options = "".join(f'<option value="{_e(t)}">{_e(t)}</option>' for t in tools)
    feature_options = '<option value="(none)">(no feature)</option>' + "".join(
        f'<option value="{_e(f)}">{_e(f)}</option>' for f in features
    )
    rows = []
    for tool in tools:
        rows.append(
            f'<tr class="tool" data-tool="{_e(tool)}">'
            f'<td colspan="{len(runs) + 1}">{_e(tool)}</td></tr>'
        )
        for clause in (c for c in spec.active() if c.tool == tool):
            cells = "".join(_cell_html(run, clause) for run in runs)
            rows.append(
                f'<tr class="clause" id="{_e(clause.id)}" data-tool="{_e(tool)}" '
                f'data-features="{_e(" ".join(clause.features))}">'
                f'<td><b>{_e(clause.id)}</b> <span class="level">{clause.level}</span><br>'
                f"{inline(clause.title)}</td>{cells}</tr>"
            )
    data = [
        {"implementation": name, "run": detail, "levels": run.levels}
        for run, (name, detail) in zip(runs, labels, strict=True)
    ]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<style>{STYLE}</style><script>{SCRIPT}</script></head>
<body>
<h1>{_e(title)}</h1>
<p>Spec version {_e(spec.version)}; {len(spec.active())} clauses. Per conformance level (core,
then each optional feature), how many MUST and SHOULD clauses passed, failed, failed as expected
(an expectations entry), were blocked (not judged: a precondition that another clause owns did
not hold) and did not run, and why. A cell of the matrix is the clause's verdict
for that run; a failing cell starts with its failing assertion, and opens to the clause text and
the full output.</p>
{"".join(quick)}
<h2>Conformance levels</h2>
<table class="levels"><thead><tr><th>level</th>{head}</tr></thead>
<tbody>{level_rows}</tbody></table>
{"<ul class='notes'>" + "".join(notes) + "</ul>" if notes else ""}
<h2>Clauses</h2>
<div class="filters"><label>tool <select id="tool"><option value="">all</option>{tool_options}
</select></label><label>feature <select id="feature"><option value="">all</option>
{feature_options}</select></label> <span id="shown"></span> clauses shown</div>
<table class="matrix" style="--runs:{len(runs)}">
<colgroup><col class="name">{"<col>" * len(runs)}</colgroup>
<thead><tr><th>clause</th>{head}</tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<script type="application/json" id="agenttools-levels">{_e(json.dumps(data))}</script>
</body></html>
"""
