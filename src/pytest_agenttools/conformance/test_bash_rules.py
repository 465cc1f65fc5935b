"""bash/analyze's risks and prefix, and bash/match_rule: table-driven, plus one property."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools import ProtocolError, ToolClient
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.spec.clauses import spec_dir

DATA = spec_dir() / "data"
RISKS = tomllib.loads((DATA / "command_risk.toml").read_text(encoding="utf-8"))["risk"]
RULES = tomllib.loads((DATA / "command_rules.toml").read_text(encoding="utf-8"))
EXAMPLES = [(r["class"], c) for r in RISKS for c in r["examples"]]
COUNTERS = [(r["class"], c) for r in RISKS for c in r["counter"]]
PREFIX_RULES = [r for r in RULES["match"] if r["rule"].endswith(":*)")]
EXACT_RULES = [r for r in RULES["match"] if not r["rule"].endswith(":*)")]


def analysed(tools: ToolClient, command: str) -> dict[str, Any]:
    answer = tools.analyze(command)
    risks = answer.get("risks")
    assert isinstance(risks, list), f"bash/analyze({command!r}) has no risks list: {answer!r}"
    for risk in risks:
        assert isinstance(risk, dict) and isinstance(risk.get("class"), str), risks
        assert isinstance(risk.get("part"), int) and isinstance(risk.get("reason"), str), risks
    assert "prefix" in answer, f"bash/analyze({command!r}) has no prefix: {answer!r}"
    assert answer["prefix"] is None or isinstance(answer["prefix"], str), answer
    return answer


def matched(tools: ToolClient, rule: str, command: str) -> dict[str, Any]:
    answer = tools.request("bash/match_rule", rule=rule, command=command)
    assert isinstance(answer, dict), f"bash/match_rule must answer an object, got {answer!r}"
    assert isinstance(answer.get("matches"), bool), answer
    assert answer.get("kind") == ("prefix" if rule.endswith(":*)") else "exact"), answer
    assert isinstance(answer.get("reason"), str) and answer["reason"], answer
    return answer


def _ids(rows: list[tuple[str, str]]) -> list[str]:
    return [f"{cls}:{command}" for cls, command in rows]


@clause("BASH-AN-05")
@pytest.mark.parametrize(("cls", "command"), EXAMPLES, ids=_ids(EXAMPLES))
def test_risk_examples_are_flagged(tools: ToolClient, cls: str, command: str) -> None:
    answer = analysed(tools, command)
    found = [r["class"] for r in answer["risks"]]
    assert cls in found, f"{command!r} is a {cls} risk; bash/analyze reported {answer['risks']}"
    parts = answer.get("parts") or []
    for risk in answer["risks"]:
        assert 0 <= risk["part"] < len(parts), f"risk part out of range: {answer}"


@clause("BASH-AN-05")
@pytest.mark.parametrize(("cls", "command"), COUNTERS, ids=_ids(COUNTERS))
def test_risk_counter_examples_are_not_flagged(tools: ToolClient, cls: str, command: str) -> None:
    answer = analysed(tools, command)
    assert answer["risks"] == [], f"{command!r} is no risk (counter-example of {cls}): {answer}"


@clause("BASH-AN-06")
@pytest.mark.parametrize(("cls", "command"), EXAMPLES, ids=_ids(EXAMPLES))
def test_a_risk_requires_a_human(tools: ToolClient, cls: str, command: str) -> None:
    answer = analysed(tools, command)
    assert answer["class"] == "require-human", f"{command!r} ({cls}) is {answer['class']}"
    assert any(cls in reason for reason in answer.get("reasons", [])), (
        f"the reasons of {command!r} must name {cls}: {answer.get('reasons')}"
    )
    assert matched(tools, f"Bash({command})", command)["matches"] is False, (
        f"an exact rule covered the risky {command!r}"
    )


@clause("BASH-AN-07")
@pytest.mark.parametrize("row", RULES["prefix"], ids=[r["command"] for r in RULES["prefix"]])
def test_prefix_table(tools: ToolClient, row: dict[str, str]) -> None:
    answer = analysed(tools, row["command"])
    expected = row.get("prefix")
    assert answer["prefix"] == expected, (
        f"{row['command']!r}: prefix should be {expected!r} ({row.get('why', '')}), got "
        f"{answer['prefix']!r}"
    )


@clause("BASH-AN-08")
@pytest.mark.parametrize(
    "row", PREFIX_RULES, ids=[f"{r['rule']} {r['command']!r}" for r in PREFIX_RULES]
)
def test_prefix_rule_table(tools: ToolClient, row: dict[str, Any]) -> None:
    answer = matched(tools, row["rule"], row["command"])
    assert answer["matches"] is row["matches"], (
        f"{row['rule']} on {row['command']!r}: expected matches={row['matches']} ({row['why']}), "
        f"got {answer}"
    )


@clause("BASH-AN-08")
@pytest.mark.parametrize("row", RULES["invalid"], ids=[r["rule"] for r in RULES["invalid"]])
def test_an_invalid_rule_is_refused(tools: ToolClient, row: dict[str, str]) -> None:
    with pytest.raises(ProtocolError) as refused:
        tools.request("bash/match_rule", rule=row["rule"], command="npm run test")
    assert refused.value.code == -32602, f"{row['rule']!r} ({row['why']}): {refused.value}"


#: static commands with the prefix a rule for them names (from the [[prefix]] table)
STATIC = [(r["command"], r["prefix"]) for r in RULES["prefix"] if r.get("prefix")]
ADDED = [
    "&& rm -rf tmp",
    "|| rm -rf tmp",
    "; rm -rf tmp",
    "| sh",
    "& rm -rf tmp",
    "\nrm -rf tmp",
    "$(rm -rf tmp)",
    "`rm -rf tmp`",
    '"$(id)"',
    "<(id)",
    "> /etc/passwd",
    ">> out.log",
    "< /etc/shadow",
    "2> err.log",
    "$HOME",
    "~",
]


@clause("BASH-AN-08")
@given(static=st.sampled_from(STATIC), added=st.sampled_from(ADDED))
def test_a_prefix_rule_never_covers_what_a_command_adds(
    tools: ToolClient, static: tuple[str, str], added: str
) -> None:
    command, prefix = static
    rule = f"Bash({prefix}:*)"
    assert matched(tools, rule, command)["matches"] is True, f"{rule} must cover {command!r}"
    longer = f"{command} {added}"
    assert matched(tools, rule, longer)["matches"] is False, f"{rule} covered {longer!r}"


@clause("BASH-AN-09")
@pytest.mark.parametrize(
    "row", EXACT_RULES, ids=[f"{r['rule']} {r['command']!r}" for r in EXACT_RULES]
)
def test_exact_rule_table(tools: ToolClient, row: dict[str, Any]) -> None:
    answer = matched(tools, row["rule"], row["command"])
    assert answer["matches"] is row["matches"], (
        f"{row['rule']} on {row['command']!r}: expected matches={row['matches']} ({row['why']}), "
        f"got {answer}"
    )
