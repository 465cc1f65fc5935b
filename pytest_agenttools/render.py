"""Render conformance reports (the JSON of ``--agenttools-report``) for people.

``Matrix`` is computed from one or more reports and the spec; ``to_html`` gives one
self-contained page (no network, no external assets: inline CSS and a few lines of inline
script for the filters), ``to_markdown`` a summary for CI job pages.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .clauses import Clause, Spec

CELL_LABELS = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "xfailed": "xfail",
    "xpassed": "XPASS",
    "skipped": "skip",
    "absent": "-",
}


@dataclass
class Cell:
    verdict: str  # passed | failed | error | xfailed | xpassed | skipped | absent
    tests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    @property
    def applicable(self) -> bool:
        return self.verdict not in ("skipped", "absent")


@dataclass
class Column:
    """One implementation: its identity, its cells by clause id, and its scores."""

    label: str
    implementation: Mapping[str, Any]
    cells: dict[str, Cell]

    def score(self, spec: Spec, level: str) -> tuple[int, int]:
        """(clauses passed, clauses applicable) for one level."""
        ids = [c.id for c in spec.active() if c.level == level]
        cells = [self.cells[i] for i in ids if i in self.cells]
        return sum(c.passed for c in cells), sum(c.applicable for c in cells)


def column_from_report(report: Mapping[str, Any]) -> Column:
    impl = report.get("implementation") or {}
    label = f"{impl.get('name', '?')} {impl.get('version', '')}".strip()
    adapter = str(impl.get("adapter", ""))
    if adapter.startswith("stdio"):
        label += " (stdio)"
    tests_by_clause: dict[str, list[dict[str, Any]]] = {}
    for test in report.get("tests", []):
        if test.get("clause"):
            tests_by_clause.setdefault(test["clause"], []).append(test)
    cells = {
        clause_id: Cell(verdict, tests_by_clause.get(clause_id, []))
        for clause_id, verdict in (report.get("clauses") or {}).items()
    }
    return Column(label, impl, cells)


@dataclass
class Matrix:
    spec: Spec
    columns: list[Column]

    @classmethod
    def from_reports(cls, spec: Spec, reports: Sequence[Mapping[str, Any]]) -> Matrix:
        return cls(spec, [column_from_report(r) for r in reports])

    def cell(self, column: Column, clause: Clause) -> Cell:
        return column.cells.get(clause.id, Cell("absent"))

    def tools(self) -> list[str]:
        return list(dict.fromkeys(c.tool for c in self.spec.active()))

    def features(self) -> list[str]:
        return sorted({f for c in self.spec.active() for f in c.features})

    def scores(self) -> list[dict[str, Any]]:
        out = []
        for column in self.columns:
            must = column.score(self.spec, "MUST")
            should = column.score(self.spec, "SHOULD")
            out.append(
                {
                    "implementation": column.label,
                    "must_passed": must[0],
                    "must_applicable": must[1],
                    "should_passed": should[0],
                    "should_applicable": should[1],
                }
            )
        return out


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f23}
h1{font-size:1.4em;margin:0 0 .3em}
table{border-collapse:collapse;margin-top:1em}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa;position:sticky;top:0}
tr.tool td{background:#eaeef2;font-weight:600}
.passed{background:#dafbe1}.failed,.error{background:#ffd7d5}.xfailed{background:#fff1c2}
.xpassed{background:#ffd7d5}.skipped{background:#f6f8fa;color:#57606a}.absent{color:#8c959f}
.level{font-size:.8em;font-weight:600;color:#57606a}
details summary{cursor:pointer}
details pre{white-space:pre-wrap;max-width:60em;max-height:24em;overflow:auto;font-size:12px;
background:#f6f8fa;padding:6px;margin:4px 0}
.scores td{font-variant-numeric:tabular-nums}
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


def _cell_html(cell: Cell, clause: Clause) -> str:
    label = CELL_LABELS.get(cell.verdict, cell.verdict)
    if cell.verdict in ("passed", "absent"):
        return f'<td class="{cell.verdict}" data-verdict="{cell.verdict}">{label}</td>'
    parts = [f"<p><b>{_e(clause.id)}</b> ({clause.level}): {_e(clause.text)}</p>"]
    for test in cell.tests:
        if test.get("outcome") == "passed":
            continue
        parts.append(
            f"<p><code>{_e(test.get('id', test.get('nodeid')))}</code>: "
            f"{_e(test.get('outcome'))}</p>"
        )
        if test.get("message"):
            parts.append(f"<pre>{_e(test['message'][-3000:])}</pre>")
    body = "".join(parts)
    return (
        f'<td class="{cell.verdict}" data-verdict="{cell.verdict}"><details>'
        f"<summary>{label}</summary>{body}</details></td>"
    )


def to_html(matrix: Matrix, title: str = "Agent tools conformance") -> str:
    spec = matrix.spec
    head = "".join(f"<th>{_e(c.label)}</th>" for c in matrix.columns)
    score_rows = "".join(
        f'<tr data-impl="{_e(s["implementation"])}"><td>{_e(s["implementation"])}</td>'
        f'<td class="must">{s["must_passed"]} / {s["must_applicable"]}</td>'
        f'<td class="should">{s["should_passed"]} / {s["should_applicable"]}</td></tr>'
        for s in matrix.scores()
    )
    tool_options = "".join(f'<option value="{_e(t)}">{_e(t)}</option>' for t in matrix.tools())
    feature_options = '<option value="(none)">(no feature)</option>' + "".join(
        f'<option value="{_e(f)}">{_e(f)}</option>' for f in matrix.features()
    )
    rows = []
    for tool in matrix.tools():
        rows.append(
            f'<tr class="tool" data-tool="{_e(tool)}">'
            f'<td colspan="{len(matrix.columns) + 1}">{_e(tool)}</td></tr>'
        )
        for clause in (c for c in spec.active() if c.tool == tool):
            cells = "".join(_cell_html(matrix.cell(col, clause), clause) for col in matrix.columns)
            rows.append(
                f'<tr class="clause" id="{_e(clause.id)}" data-tool="{_e(tool)}" '
                f'data-features="{_e(" ".join(clause.features))}">'
                f'<td title="{_e(clause.text)}"><b>{_e(clause.id)}</b> '
                f'<span class="level">{clause.level}</span><br>{_e(clause.title)}</td>{cells}</tr>'
            )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<style>{STYLE}</style><script>{SCRIPT}</script></head>
<body>
<h1>{_e(title)}</h1>
<p>Spec version {_e(spec.version)}; {len(spec.active())} clauses. A cell is the clause's verdict
for that implementation: pass, FAIL, xfail (expected failure), skip (tool, feature or limit not
declared). Click a cell to see the failing tests and the clause text.</p>
<table class="scores"><thead><tr><th>implementation</th><th>MUST passed / applicable</th>
<th>SHOULD passed / applicable</th></tr></thead><tbody>{score_rows}</tbody></table>
<div class="filters"><label>tool <select id="tool"><option value="">all</option>{tool_options}
</select></label><label>feature <select id="feature"><option value="">all</option>
{feature_options}</select></label> <span id="shown"></span> clauses shown</div>
<table class="matrix"><thead><tr><th>clause</th>{head}</tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<script type="application/json" id="agenttools-scores">{_e(json.dumps(matrix.scores()))}</script>
</body></html>
"""


MD_MARKS = {
    "passed": "pass",
    "failed": "**FAIL**",
    "error": "**ERROR**",
    "xfailed": "xfail",
    "xpassed": "**XPASS**",
    "skipped": "skip",
    "absent": "-",
}


def to_markdown(matrix: Matrix) -> str:
    lines = [
        "## Agent tools conformance",
        "",
        "| implementation | MUST | SHOULD |",
        "|---|---|---|",
    ]
    for score in matrix.scores():
        lines.append(
            f"| {score['implementation']} | {score['must_passed']}/"
            f"{score['must_applicable']} | {score['should_passed']}/"
            f"{score['should_applicable']} |"
        )
    lines += [
        "",
        "| clause | level | " + " | ".join(c.label for c in matrix.columns) + " |",
        "|---|---|" + "---|" * len(matrix.columns),
    ]
    for clause in matrix.spec.active():
        marks = [MD_MARKS[matrix.cell(col, clause).verdict] for col in matrix.columns]
        if all(m in ("pass", "-", "skip") for m in marks) and len(matrix.columns) == 1:
            continue
        lines.append(f"| {clause.id} {clause.title} | {clause.level} | " + " | ".join(marks) + " |")
    return "\n".join(lines) + "\n"
