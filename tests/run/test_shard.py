"""``--shard K/N`` splits a run by clause, the same way every time; ``report --merge`` joins the
shards into the report the unsharded run writes, and refuses what is not one run's shards."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.report.merge import MergeError, check_shards, merge
from pytest_agenttools.run.shard import Shard, deal
from pytest_agenttools.spec.clauses import load
from tests.support import REPO, run_agenttools

GLOB_NAIVE = "pytest_agenttools.implementations.broken.glob_naive:create"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), (" 3 / 3 ", Shard(3, 3))],
)
def test_shard_parses(text: str, expected: Shard) -> None:
    assert Shard.parse(text) == expected
    assert str(expected) == f"{expected.index}/{expected.count}"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2", "write K/N"),
        ("a/b", "write K/N"),
        ("0/4", "K must be 1 to 4"),
        ("5/4", "K must be 1 to 4"),
        ("1/0", "N must be 1 to"),
        ("1/100000", "N must be 1 to"),
    ],
)
def test_a_bad_shard_says_what_to_write(text: str, says: str) -> None:
    with pytest.raises(pytest.UsageError, match=says):
        Shard.parse(text)


def _items(seed: int) -> list[tuple[str, float]]:
    """(group, weight) pairs: 40 groups of one to six tests, a few of them long."""
    rng = random.Random(seed)
    items = []
    for group in range(40):
        weight = rng.choice([1.0, 1.0, 1.0, 30.0])
        items += [(f"G{group:02}", weight)] * rng.randint(1, 6)
    return items


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_the_deal_keeps_groups_whole_and_covers_every_test_once(count: int) -> None:
    items = _items(count)
    indexed = list(enumerate(items))
    shards = deal(indexed, count, lambda i: i[1][0], lambda i: i[1][1])
    assert len(shards) == count
    assert sorted(i for shard in shards for i, _ in shard) == list(range(len(items)))
    homes: dict[str, int] = {}
    for number, shard in enumerate(shards):
        for _, (group, _) in shard:
            assert homes.setdefault(group, number) == number, f"{group} split across shards"
    loads = [sum(w for _, (_, w) in shard) for shard in shards]
    heaviest_group = max(sum(w for g2, w in items if g2 == g) for g, _ in items)
    # longest-first to the lightest: no shard exceeds the lightest by more than one group
    assert max(loads) - min(loads) <= heaviest_group


def test_the_deal_does_not_depend_on_the_order_tests_arrive_in() -> None:
    items = _items(11)
    shuffled = items[:]
    random.Random(5).shuffle(shuffled)

    def groups(seq: list[tuple[str, float]]) -> list[set[str]]:
        return [{g for g, _ in s} for s in deal(seq, 4, lambda i: i[0], lambda i: i[1])]

    assert groups(items) == groups(shuffled)


def _shard_report(shard: str, tests: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "format": "agenttools-report/2",
        "implementation": {"name": "toy", "version": "1"},
        "selection": {
            "tools": [],
            "features": [],
            "keyword": "",
            "markers": "",
            "paths": [],
            "shard": shard,
        },
        "clauses": {},
        "tests": tests,
        **extra,
    }


def _test(nodeid: str, clause: str, outcome: str = "passed") -> dict[str, Any]:
    return {"nodeid": nodeid, "clause": clause, "outcome": outcome}


@pytest.mark.parametrize(
    ("reports", "says"),
    [
        ([("a", _shard_report("1/2", []))], r"shard\(s\) 2/2 missing"),
        ([("a", _shard_report("1/2", [])), ("b", _shard_report("1/2", []))], "both shard 1/2"),
        ([("a", _shard_report("1/2", [])), ("b", _shard_report("2/3", []))], "one N"),
        ([("a", _shard_report("", []))], "not a shard"),
        (
            [
                ("a", _shard_report("1/2", [])),
                ("b", _shard_report("2/2", [], implementation={"name": "other"})),
            ],
            "another implementation",
        ),
        (
            [
                ("a", _shard_report("1/2", [])),
                ("b", {**_shard_report("2/2", []), "format": "agenttools-report/1"}),
            ],
            "same kit",
        ),
    ],
)
def test_merge_refuses_what_is_not_one_runs_shards(
    reports: list[tuple[str, dict[str, Any]]], says: str
) -> None:
    with pytest.raises(MergeError, match=says):
        check_shards(reports)


def test_merge_refuses_a_test_that_ran_in_two_shards() -> None:
    one = _test("t.py::a", "READ-LN-01")
    with pytest.raises(MergeError, match="ran in two shards"):
        merge([("a", _shard_report("1/2", [one])), ("b", _shard_report("2/2", [one]))], load())


def test_merged_expectations_are_judged_across_shards() -> None:
    """An entry matched in one shard only is not unmatched; an xfail entry is stale only when
    its tests passed in every shard."""
    spec = load()
    xfail = {"expectation": "xfail:tool:read"}
    a = _shard_report(
        "1/2",
        [{**_test("t.py::a", "READ-LN-01", "xpassed"), **xfail}],
        expectations={
            "file": "e.toml",
            "entries": 3,
            "stale": ["tool:read"],
            "unmatched": ["GONE-01", "ELSEWHERE-01"],
        },
        problems=[
            "stale expectation [[xfail]] #1 id='tool:read' in e.toml: every test ...",
            "unmatched expectation [[xfail]] #2 id='GONE-01' in e.toml: it matches no test",
            "unmatched expectation [[xfail]] #3 id='ELSEWHERE-01' in e.toml: it matches no test",
        ],
    )
    b = _shard_report(
        "2/2",
        [{**_test("t.py::b", "READ-OFF-01", "xfailed"), **xfail}],
        expectations={"file": "e.toml", "entries": 3, "stale": [], "unmatched": ["GONE-01"]},
        problems=["unmatched expectation [[xfail]] #2 id='GONE-01' in e.toml: it matches no test"],
    )
    merged = merge([("a", a), ("b", b)], spec)
    assert merged["expectations"]["stale"] == []
    assert merged["expectations"]["unmatched"] == ["GONE-01"]
    assert merged["problems"] == [
        "unmatched expectation [[xfail]] #2 id='GONE-01' in e.toml: it matches no test"
    ]


def _same_verdicts(whole: dict[str, Any], merged: dict[str, Any]) -> None:
    for key in ("clauses", "levels", "summary", "not_run", "blocked_by", "undeclared_tools"):
        assert merged[key] == whole[key], key
    assert {t["nodeid"]: t["outcome"] for t in merged["tests"]} == {
        t["nodeid"]: t["outcome"] for t in whole["tests"]
    }


@pytest.mark.kit_long(35)  # six runs of the suite and two merges, one after another
def test_shards_of_a_run_merge_into_the_whole_runs_report(tmp_path: Path) -> None:
    """A broken glob with failures, passes, skips and an expected failure: the merge of its
    shards, dealt two ways (one shard, and four for six clauses, so that some shard gets one
    clause and its group is never split), has the unsharded run's verdicts, levels, counts,
    expectations and exit status. One whole run is the baseline of both deals."""
    expectations = tmp_path / "expect.toml"
    expectations.write_text(
        '[[xfail]]\nid = "GLOB-CAP-01"\nreason = "lists every match, with no cap"\n'
        '[[xfail]]\nid = "GLOB-NONE-01"\nreason = "stale on purpose: its tests pass"\n',
        encoding="utf-8",
    )
    chosen = "GLOB-CAP-01,GLOB-NONE-01,GLOB-PAT-03,GLOB-SENS-03,GLOB-FILES-01,GLOB-SORT-01"
    common = ["--impl", GLOB_NAIVE, "--expectations", str(expectations), "--clauses", chosen]
    whole = run_agenttools("run", *common, "--report-json", "whole.json", cwd=tmp_path)
    whole_data = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    assert whole.returncode == 1, whole.stdout[-2000:]
    for count in (1, 4):
        parts = []
        for index in range(1, count + 1):
            name = f"part{index}-of-{count}.json"
            part = run_agenttools(
                "run", *common, "--shard", f"{index}/{count}", "--report-json", name, cwd=tmp_path
            )
            assert "Traceback" not in part.stdout + part.stderr
            parts.append(name)
        merged_name = f"merged-{count}.json"
        merged = run_agenttools(
            "report", "--merge", *parts, "--json", merged_name, "--strict", cwd=tmp_path
        )
        assert merged.returncode == 1, (count, merged.stderr)
        assert all(json.loads((tmp_path / p).read_text())["selection"]["shard"] for p in parts)
        merged_data = json.loads((tmp_path / merged_name).read_text(encoding="utf-8"))
        _same_verdicts(whole_data, merged_data)
        assert merged_data["expectations"]["stale"] == whole_data["expectations"]["stale"]
        assert merged_data["expectations"]["stale"] == ["GLOB-NONE-01"]
        assert merged_data["selection"]["shard"] == ""
        assert "stale expectation" in merged.stderr


def test_report_diff_names_regressions_and_exits_1(tmp_path: Path) -> None:
    spec = load()
    some = sorted(c.id for c in spec.active())[:3]
    old = {"clauses": {some[0]: "passed", some[1]: "failed", some[2]: "passed"}}
    new = {"clauses": {some[0]: "failed", some[1]: "passed", some[2]: "passed"}}
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    changed = run_agenttools("report", "old.json", "new.json", "--diff", cwd=tmp_path)
    assert changed.returncode == 1, changed.stderr
    assert f"regressions (1):\n  {some[0]}: passed -> failed" in changed.stdout
    assert f"fixed (1):\n  {some[1]}: failed -> passed" in changed.stdout
    same = run_agenttools("report", "new.json", "new.json", "--diff", cwd=tmp_path)
    assert same.returncode == 0 and "no clause changed its verdict" in same.stdout


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def recipe_commands(text: str) -> list[list[str]]:
    """Every ``agenttools`` command of a CI file, as argv, its variables given plain values."""
    import re
    import shlex

    import yaml

    commands = []
    for script in _strings(yaml.safe_load(text)):
        for line in script.splitlines():
            if "agenttools run " not in line and "agenttools report " not in line:
                continue
            line = re.sub(r"\$\{\{[^}]*\}\}", "1", line)
            line = re.sub(r"\$\w+", "2", line)
            argv = shlex.split(line[line.index("agenttools ") :])[1:]
            for stop in ("||", "&&", ";", "|", "--"):
                if stop in argv:
                    argv = argv[: argv.index(stop)]
            commands.append(argv)
    return commands


@pytest.mark.parametrize("name", ["github-actions-shards.yml", "gitlab-ci-shards.yml"])
def test_the_ci_recipes_are_valid_and_use_the_tested_commands(name: str) -> None:
    """The sharding recipes are valid YAML; their commands parse, and are the ones the merge
    test runs: a run with ``--shard K/N --report-json``, then ``report --merge --strict``."""
    pytest.importorskip("yaml")
    from pytest_agenttools.cli.commands import build_parser

    commands = recipe_commands((REPO / "docs" / "recipes" / name).read_text(encoding="utf-8"))
    parsed = [build_parser().parse_args(argv) for argv in commands]
    runs = [ns for ns in parsed if ns.command == "run"]
    merges = [ns for ns in parsed if ns.command == "report"]
    assert runs and all(Shard.parse(ns.shard) and ns.report and ns.strict for ns in runs)
    assert merges and all(ns.merge and ns.strict and ns.json for ns in merges)
