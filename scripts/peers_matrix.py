"""The peers matrix: which real agent tool set gets which clause right, published in docs/peers/.

Each peer the project ships (``PEERS``) is run strict against its pinned version, manifest and
expectations file by the kit's long tier; with ``AGENTTOOLS_PEER_REPORTS=DIR`` set, each of
those runs leaves its JSON report in DIR (``tests.support.strict_report``). From those reports:

    python scripts/peers_matrix.py render --reports DIR   # write docs/peers/, add to history
    python scripts/peers_matrix.py check --reports DIR    # CI: the committed page is current

``render`` writes ``docs/peers/README.md`` (levels per peer, then every clause, each failing or
expected cell with the behaviour its expectations entry names), ``matrix.json`` (schema:
``matrix.schema.json``), an SVG badge per peer and declared level, and one slim report per peer
under ``history/PEER/DATE.json`` that ``agenttools report OLD NEW --diff`` compares. ``check``
compares verdicts only (not dates or durations) and names what moved.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "peers"
FORMAT = "agenttools-peers/1"
#: the levels every peer is shown with (the robust clauses' level was once named robustness)
ALWAYS = ("core", "robust", "robustness")
CONFINEMENT = ("confine.files", "confine.bash", "confine.network")
VERDICT_MARK = {
    "passed": "pass",
    "failed": "FAIL",
    "expected": "known",
    "blocked": "blocked",
    "not_run": "-",
}


@dataclass(frozen=True)
class Peer:
    """One real tool set the project runs: where it lives and what it is."""

    key: str
    #: the implementation name its adapter reports (the report's ``implementation.name``)
    name: str
    directory: str
    language: str
    kind: str
    #: the registry package and the file that pins its version
    package: str
    pin_file: str


PEERS: tuple[Peer, ...] = (
    Peer("pi", "pi", "peers/pi", "TypeScript", "stdio adapter",
         "@mariozechner/pi-coding-agent", "package.json"),
    Peer("deepagents", "deepagents", "peers/deepagents", "Python", "in-process adapter",
         "deepagents", "requirements.txt"),
    Peer("mcp-filesystem", "server-filesystem", "peers/mcp-filesystem", "TypeScript",
         "MCP server", "@modelcontextprotocol/server-filesystem", "package.json"),
    Peer("mcp-shell", "mcp-shell-server", "peers/mcp-shell", "TypeScript", "MCP server",
         "@mako10k/mcp-shell-server", "package.json"),
    Peer("gemini-cli", "gemini-cli", "peers/gemini-cli", "TypeScript", "stdio adapter",
         "@google/gemini-cli-core", "package.json"),
    Peer("desktop-commander", "desktop-commander", "peers/desktop-commander", "TypeScript",
         "MCP server", "@wonderwhy-er/desktop-commander", "package.json"),
    Peer("agno", "agno", "peers/agno", "Python", "in-process adapter", "agno",
         "requirements.txt"),
)  # fmt: skip


def pinned_version(peer: Peer) -> str:
    """The version the peer's own files pin (package.json or requirements.txt)."""
    path = REPO / peer.directory / peer.pin_file
    if peer.pin_file == "package.json":
        deps = json.loads(path.read_text(encoding="utf-8")).get("dependencies") or {}
        return str(deps.get(peer.package, "?"))
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(rf"^\s*{re.escape(peer.package)}\s*==\s*([\w.]+)", line)
        if match:
            return match[1]
    return "?"


def expectation_reasons(peer: Peer) -> dict[str, str]:
    """``kind:id`` of each entry of the peer's expectations file -> its reason."""
    path = REPO / peer.directory / "expectations.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {
        f"{kind}:{entry['id']}": " ".join(str(entry.get("reason", "")).split())
        for kind in ("xfail", "skip")
        for entry in data.get(kind, [])
    }


def level_verdict(raw: str | None) -> str:
    return {
        "passed": "passed",
        "xpassed": "passed",
        "failed": "failed",
        "error": "failed",
        "xfailed": "expected",
        "blocked": "blocked",
    }.get(raw or "", "not_run")


def peer_entry(peer: Peer, report: Mapping[str, Any]) -> dict[str, Any]:
    reasons = expectation_reasons(peer)
    why: dict[str, str] = {}
    for test in report.get("tests") or ():
        clause, key = test.get("clause"), test.get("expectation")
        if clause and key and key in reasons and clause not in why:
            why[clause] = reasons[key]
    clauses: dict[str, dict[str, str]] = {}
    not_run = report.get("not_run") or {}
    for cid, raw in sorted((report.get("clauses") or {}).items()):
        verdict = level_verdict(raw)
        cell = {"verdict": verdict}
        if verdict in ("expected", "failed", "blocked") and cid in why:
            cell["reason"] = why[cid]
        clauses[cid] = cell
    for cid, reason in sorted(not_run.items()):
        if cid not in clauses or clauses[cid]["verdict"] == "not_run":
            clauses[cid] = {"verdict": "not_run", "reason": str(reason).splitlines()[0][:300]}
    impl = report.get("implementation") or {}
    levels = {
        name: {
            "declared": bool(entry.get("declared")),
            "MUST": {k: int(v) for k, v in (entry.get("MUST") or {}).items()},
            "SHOULD": {k: int(v) for k, v in (entry.get("SHOULD") or {}).items()},
        }
        for name, entry in (report.get("levels") or {}).items()
    }
    return {
        "key": peer.key,
        "name": str(impl.get("name") or peer.name),
        "version": str(impl.get("version") or ""),
        "pinned": f"{peer.package}=={pinned_version(peer)}",
        "language": peer.language,
        "kind": peer.kind,
        "directory": peer.directory,
        "run_started": str(report.get("started") or ""),
        "levels": levels,
        "clauses": dict(sorted(clauses.items())),
    }


def load_reports(directory: Path) -> dict[str, dict[str, Any]]:
    """Each peer's report in ``directory`` (named after its implementation), by peer key."""
    found = {}
    for peer in PEERS:
        path = directory / f"{peer.name}.json"
        if not path.is_file():
            raise SystemExit(
                f"peers_matrix: no report for {peer.key} ({path}); run the long tier with "
                "AGENTTOOLS_PEER_REPORTS set, with every peer installed"
            )
        found[peer.key] = json.loads(path.read_text(encoding="utf-8"))
    return found


def build(reports: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    sys.path.insert(0, str(REPO / "src"))
    from pytest_agenttools import __version__

    return {
        "format": FORMAT,
        "kit_version": __version__,
        "generated": time.strftime("%Y-%m-%d"),
        "peers": [peer_entry(p, reports[p.key]) for p in PEERS],
    }


def verdicts_only(matrix: Mapping[str, Any]) -> dict[str, Any]:
    """What ``check`` compares: no dates, no run times."""
    return {
        p["key"]: {
            "version": p["version"],
            "levels": p["levels"],
            "clauses": {cid: c["verdict"] for cid, c in p["clauses"].items()},
        }
        for p in matrix["peers"]
    }


def counts(level: Mapping[str, Any], requirement: str) -> str:
    c = level.get(requirement) or {}
    total = sum(c.values())
    if not total:
        return ""
    parts = [f"{c.get('passed', 0)}/{total}"]
    for key, word in (("failed", "failed"), ("expected", "known"), ("blocked", "blocked")):
        if c.get(key):
            parts.append(f"{c[key]} {word}")
    if c.get("not_run"):
        parts.append(f"{c['not_run']} not run")
    return ", ".join(parts)


def badge(label: str, value: str, colour: str) -> str:
    """A flat two-part SVG badge (about 6.5 px a character of Verdana 11)."""
    left, right = 10 + int(6.5 * len(label)), 10 + int(6.5 * len(value))
    width = left + right
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{label}: {value}"><title>{label}: {value}</title>'
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" '
        'font-size="11">'
        f'<text x="{left / 2:.1f}" y="14">{label}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{value}</text></g></svg>\n'
    )


def badge_of(level: Mapping[str, Any]) -> tuple[str, str]:
    must = level.get("MUST") or {}
    total = sum(must.values())
    passed = must.get("passed", 0)
    if total and passed == total:
        return f"{passed}/{total} MUST", "#4c1"
    return f"{passed}/{total} MUST", "#dfb317" if passed * 2 >= total else "#e05d44"


def shown_levels(peer: Mapping[str, Any]) -> list[str]:
    levels = peer["levels"]
    declared = [n for n, e in levels.items() if e["declared"] and n not in ALWAYS]
    return [n for n in ALWAYS if n in levels] + sorted(declared)


def page(matrix: Mapping[str, Any], spec_titles: Mapping[str, tuple[str, str, str]]) -> str:
    peers = matrix["peers"]
    out = [
        "# Peers: which agent tool set gets what right",
        "",
        "Generated by `scripts/peers_matrix.py` from the kit's strict runs of each real tool "
        f"set it ships (kit {matrix['kit_version']}, {matrix['generated']}); CI checks that this "
        "page matches the runs. A *known* cell is a failure the peer's expectations file names "
        "(the behaviour is quoted below); *-* is not run (a tool or feature the peer does not "
        "declare). Data: [matrix.json](matrix.json) (schema "
        "[matrix.schema.json](matrix.schema.json)); history: [history/](history/), compared "
        "with `agenttools report OLD.json NEW.json --diff`.",
        "",
        "| peer | version | language, adapter | core MUST | core SHOULD | robust MUST | "
        "confinement |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in peers:
        levels = p["levels"]
        core = levels.get("core", {})
        robust = levels.get("robust") or levels.get("robustness") or {}
        confined = [n for n in CONFINEMENT if levels.get(n, {}).get("declared")]
        out.append(
            f"| [{p['name']}](#{p['key']}) ![core](badges/{p['key']}-core.svg) | "
            f"{p['version']} (`{p['pinned']}`) | {p['language']}, {p['kind']} | "
            f"{counts(core, 'MUST')} | {counts(core, 'SHOULD')} | {counts(robust, 'MUST')} | "
            f"{', '.join(confined) or 'not declared'} |"
        )
    for p in peers:
        out += ["", f"## {p['key']}", ""]
        out.append(
            f"{p['name']} {p['version']}, pinned as `{p['pinned']}` in `{p['directory']}`; "
            f"run {p['run_started']}."
        )
        out += ["", "| level | MUST | SHOULD |", "|---|---|---|"]
        for name in shown_levels(p):
            level = p["levels"][name]
            out.append(f"| {name} | {counts(level, 'MUST')} | {counts(level, 'SHOULD')} |")
        notable = [
            (cid, c) for cid, c in p["clauses"].items() if c["verdict"] in ("failed", "expected")
        ]
        if notable:
            out += ["", "| clause | verdict | behaviour |", "|---|---|---|"]
            for cid, c in notable:
                reason = c.get("reason", "").replace("|", "\\|")
                out.append(f"| {cid} | {VERDICT_MARK[c['verdict']]} | {reason} |")
    out += ["", "## Every clause", ""]
    out.append("| clause | level | " + " | ".join(p["key"] for p in peers) + " |")
    out.append("|---|---|" + "---|" * len(peers))
    for cid in sorted(spec_titles, key=lambda c: (spec_titles[c][2], c)):
        title, level, _ = spec_titles[cid]
        cells = [VERDICT_MARK[p["clauses"].get(cid, {"verdict": "not_run"})["verdict"]]
                 for p in peers]  # fmt: skip
        out.append(f"| {cid} {title} | {level} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def spec_titles() -> dict[str, tuple[str, str, str]]:
    sys.path.insert(0, str(REPO / "src"))
    from pytest_agenttools.spec.clauses import load

    return {c.id: (c.title, c.level, c.tool) for c in load().active()}


def slim(report: Mapping[str, Any]) -> dict[str, Any]:
    """What history keeps of a report: enough for ``agenttools report --diff``."""
    keep = ("format", "implementation", "started", "summary", "clauses", "not_run", "levels")
    out = {k: report.get(k) for k in keep}
    impl = dict(out.get("implementation") or {})
    impl.pop("manifest", None)
    out["implementation"] = impl
    return out


def render(reports_dir: Path, out: Path, history: bool) -> dict[str, Any]:
    reports = load_reports(reports_dir)
    matrix = build(reports)
    out.mkdir(parents=True, exist_ok=True)
    (out / "matrix.json").write_text(json.dumps(matrix, indent=1) + "\n", encoding="utf-8")
    (out / "README.md").write_text(page(matrix, spec_titles()), encoding="utf-8")
    badges = out / "badges"
    badges.mkdir(exist_ok=True)
    for old in badges.glob("*.svg"):
        old.unlink()
    for p in matrix["peers"]:
        for name in shown_levels(p):
            value, colour = badge_of(p["levels"][name])
            (badges / f"{p['key']}-{name}.svg").write_text(
                badge(name, value, colour), encoding="utf-8"
            )
    if history:
        for peer in PEERS:
            folder = out / "history" / peer.key
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{matrix['generated']}.json"
            path.write_text(json.dumps(slim(reports[peer.key]), indent=1) + "\n", "utf-8")
    return matrix


def moved(committed: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[str]:
    """What differs between two ``verdicts_only`` views, one line each."""
    lines = []
    for key in sorted(set(committed) | set(fresh)):
        a, b = committed.get(key), fresh.get(key)
        if a is None or b is None:
            lines.append(f"{key}: {'added' if a is None else 'gone'}")
            continue
        if a["version"] != b["version"]:
            lines.append(f"{key}: version {a['version']} -> {b['version']}")
        for cid in sorted(set(a["clauses"]) | set(b["clauses"])):
            x, y = a["clauses"].get(cid, "absent"), b["clauses"].get(cid, "absent")
            if x != y:
                lines.append(f"{key}: {cid} {x} -> {y}")
    return lines


def check(reports_dir: Path, out: Path) -> int:
    committed = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    fresh = build(load_reports(reports_dir))
    lines = moved(verdicts_only(committed), verdicts_only(fresh))
    if not lines:
        print(f"peers matrix: current ({len(fresh['peers'])} peers)")
        return 0
    print(
        f"peers matrix: docs/peers is out of date ({len(lines)} changes); regenerate with "
        "`python scripts/peers_matrix.py render --reports DIR` and commit it:",
        *lines[:60],
        sep="\n  ",
    )
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("render", "check"))
    parser.add_argument("--reports", required=True, type=Path, help="the peers' JSON reports")
    parser.add_argument("--out", type=Path, default=OUT, help="default: docs/peers")
    parser.add_argument("--no-history", action="store_true", help="render: do not add to history/")
    ns = parser.parse_args(argv)
    if ns.action == "render":
        matrix = render(ns.reports, ns.out, history=not ns.no_history)
        print(f"peers matrix: wrote {ns.out} ({len(matrix['peers'])} peers)")
        return 0
    return check(ns.reports, ns.out)


if __name__ == "__main__":
    sys.exit(main())
