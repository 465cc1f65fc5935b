"""The shards of one run (``--agenttools-shard K/N``) joined into the report of the whole run.

A merged report is built from the shards' test records, exactly as the run's own report is built
from its tests, so its verdicts and levels are those an unsharded run makes. What makes the
shards one run is checked, never assumed: the same implementation and selection, every shard of
1..N present once, no test in two shards. Expectations are judged across the shards: an entry is
unmatched only if no shard matched it, and stale only if every test it matched, in every shard,
passed (a shard cannot know this alone, which is why a shard run does not fail on a stale entry).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_agenttools.report.data import (
    REPORT_FORMAT,
    ConformanceReport,
    RunSelection,
    TestRecord,
)
from pytest_agenttools.spec.clauses import Spec

PASSING = ("passed", "xpassed")


class MergeError(ValueError):
    """The reports are not the shards of one run; the message says which and why."""


def _shard_of(source: str, data: Mapping[str, Any]) -> tuple[int, int]:
    text = str((data.get("selection") or {}).get("shard") or "")
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()):
        raise MergeError(
            f"{source} is not a shard (its run had no --shard K/N); merge only the reports of "
            "`agenttools run --shard K/N` runs"
        )
    return int(index), int(count)


def _identity(data: Mapping[str, Any]) -> dict[str, Any]:
    return dict(data.get("implementation") or {})


def _same_run(selection: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in selection.items() if k != "shard"}


def check_shards(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Raise ``MergeError`` unless ``reports`` are shards 1..N of one run, each once."""
    if not reports:
        raise MergeError("no reports to merge")
    first_source, first = reports[0]
    shards: dict[int, str] = {}
    counts = set()
    for source, data in reports:
        if data.get("format") != REPORT_FORMAT:
            raise MergeError(
                f"{source} has format {data.get('format')!r}, this kit writes {REPORT_FORMAT!r}: "
                "make every shard with the same kit"
            )
        index, count = _shard_of(source, data)
        counts.add(count)
        if index in shards:
            raise MergeError(f"{source} and {shards[index]} are both shard {index}/{count}")
        shards[index] = source
        if _identity(data) != _identity(first):
            raise MergeError(
                f"{source} ran another implementation than {first_source} "
                f"({_identity(data)} against {_identity(first)}): merge the shards of one run"
            )
        if _same_run(data.get("selection") or {}) != _same_run(first.get("selection") or {}):
            raise MergeError(
                f"{source} selected other tests than {first_source}; every shard must be run "
                "with the same --tools, --features, --clauses, -k, -m and test paths"
            )
    if len(counts) > 1:
        raise MergeError(f"the reports come from splits into {sorted(counts)} shards; use one N")
    (count,) = counts
    missing = sorted(set(range(1, count + 1)) - set(shards))
    if missing:
        listed = ", ".join(f"{k}/{count}" for k in missing)
        raise MergeError(f"shard(s) {listed} missing: a merged report must hold all {count}")


def _expectations(
    reports: Sequence[Mapping[str, Any]], tests: Mapping[str, TestRecord]
) -> tuple[dict[str, Any] | None, list[str]]:
    summaries: list[Mapping[str, Any]] = [
        r["expectations"] for r in reports if isinstance(r.get("expectations"), Mapping)
    ]
    if not summaries:
        problems = [p for r in reports for p in r.get("problems") or ()]
        return None, list(dict.fromkeys(problems))
    unmatched = set(summaries[0].get("unmatched") or ())
    for summary in summaries[1:]:
        unmatched &= set(summary.get("unmatched") or ())
    outcomes: dict[str, list[str]] = {}
    for record in tests.values():
        if record.expectation and record.expectation.startswith("xfail:"):
            outcomes.setdefault(record.expectation[len("xfail:") :], []).append(record.outcome)
    stale = {ident for ident, seen in outcomes.items() if seen and all(o in PASSING for o in seen)}
    problems = []
    for report in reports:
        for line in report.get("problems") or ():
            ident = _problem_entry(line)
            if line.startswith("stale expectation") and ident not in stale:
                continue
            if line.startswith("unmatched expectation") and ident not in unmatched:
                continue
            problems.append(line)
    summary = dict(summaries[0])
    summary["stale"] = sorted(stale)
    summary["unmatched"] = sorted(unmatched)
    return summary, list(dict.fromkeys(problems))


def _problem_entry(line: str) -> str | None:
    """The entry id a stale or unmatched problem line names (``... id='X' ...``)."""
    marker = " id="
    if marker not in line:
        return None
    rest = line.split(marker, 1)[1]
    quote = rest[:1]
    if quote not in ("'", '"'):
        return None
    return rest[1:].split(quote, 1)[0]


def merge(reports: Sequence[tuple[str, Mapping[str, Any]]], spec: Spec) -> dict[str, Any]:
    """The report of the whole run whose shards ``reports`` are (``check_shards`` first)."""
    check_shards(reports)
    datas = [data for _, data in reports]
    tests: dict[str, TestRecord] = {}
    for source, data in reports:
        for raw in data.get("tests") or ():
            record = TestRecord.from_json(raw)
            if record.nodeid in tests:
                raise MergeError(
                    f"test {record.nodeid} ran in two shards (again in {source}): the shards "
                    "were not split from one collection; run every shard with the same kit, "
                    "implementation and options"
                )
            tests[record.nodeid] = record
    selection = RunSelection.from_json(
        {**(datas[0].get("selection") or {}), "shard": ""},
    )
    starts = [str(d.get("started") or "") for d in datas if d.get("started")]
    merged = ConformanceReport(
        tests=tests,
        implementation=_identity(datas[0]),
        selection=selection,
    )
    merged.expectations, merged.problems = _expectations(datas, tests)
    out = merged.to_json(spec)
    out["started"] = min(starts) if starts else time.strftime("%Y-%m-%dT%H:%M:%SZ")
    out["duration"] = max(float(d.get("duration") or 0.0) for d in datas)
    out["merged_from"] = [
        {"source": source, "shard": str((data.get("selection") or {}).get("shard") or "")}
        for source, data in sorted(reports, key=lambda r: _shard_of(*r))
    ]
    return out
