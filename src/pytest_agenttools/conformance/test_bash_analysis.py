"""bash/analyze: command classes and keepalive, table-driven, plus two properties."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools import ToolClient
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.spec.clauses import spec_dir

TABLE = tomllib.loads((spec_dir() / "data" / "command_analysis.toml").read_text(encoding="utf-8"))
RANK = {"reusable": 0, "exact-only": 1, "require-human": 2}


def analysed(tools: ToolClient, command: str) -> dict[str, Any]:
    answer = tools.analyze(command)
    assert answer.get("class") in RANK, f"bash/analyze({command!r}) gave {answer!r}"
    assert isinstance(answer.get("reasons"), list)
    assert isinstance(answer.get("keepalive"), bool)
    return answer


@clause("BASH-AN-01")
@pytest.mark.parametrize("row", TABLE["class"], ids=[r["command"] for r in TABLE["class"]])
def test_class_table(tools: ToolClient, row: dict[str, str]) -> None:
    answer = analysed(tools, row["command"])
    classes = row.get("classes", [row["class"]])
    assert answer["class"] in classes, (
        f"{row['command']!r}: expected {' or '.join(classes)} ({row['why']}), got {answer}"
    )
    if answer["class"] != "reusable":
        assert answer["reasons"], "a class above reusable must say why"


@clause("BASH-AN-02")
def test_top_level_split(tools: ToolClient) -> None:
    answer = analysed(tools, "git status && npm test || make; ls | wc -l & echo $HOME")
    parts = answer.get("parts")
    assert isinstance(parts, list) and len(parts) == 6, f"expected 6 parts: {parts}"
    assert [p["class"] for p in parts] == ["reusable"] * 5 + ["exact-only"], parts
    assert answer["class"] == "exact-only"


@clause("BASH-AN-02")
@pytest.mark.parametrize(
    "command",
    [
        "for f in a b; do echo $f; done",
        "(cd x && ls)",
        "f() { ls; }",
        "{ ls; }",
        "echo 'open",
        "ls &&",
        "while true; do :; done",
    ],
)
def test_fail_closed(tools: ToolClient, command: str) -> None:
    assert analysed(tools, command)["class"] == "require-human"


@clause("BASH-AN-03")
@pytest.mark.parametrize("row", TABLE["keepalive"], ids=[r["command"] for r in TABLE["keepalive"]])
def test_keepalive_table(tools: ToolClient, row: dict[str, Any]) -> None:
    answer = analysed(tools, row["command"])
    assert answer["keepalive"] is row["keepalive"], f"{row['command']!r}: {answer}"


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-/", min_size=1, max_size=8)
commands = st.tuples(
    st.sampled_from(["git", "ls", "cat", "grep", "make", "npm", "echo"]),
    st.lists(words.filter(lambda w: not w.startswith("-")), min_size=1, max_size=4),
)


@clause("BASH-AN-04")
@given(command=commands, data=st.data())
def test_quoting_a_literal_keeps_class(tools: ToolClient, command: Any, data: Any) -> None:
    name, args = command
    plain = " ".join([name, *args])
    index = data.draw(st.integers(0, len(args) - 1))
    quoted_args = list(args)
    quoted_args[index] = f"'{args[index]}'"
    quoted = " ".join([name, *quoted_args])
    assert analysed(tools, plain)["class"] == analysed(tools, quoted)["class"], (plain, quoted)


@clause("BASH-AN-04")
@given(command=commands, data=st.data())
def test_inserted_substitution_requires_human(tools: ToolClient, command: Any, data: Any) -> None:
    name, args = command
    index = data.draw(st.integers(0, len(args)))
    form = data.draw(st.sampled_from(["$(id)", "`id`", '"$(whoami)"', "<(ls)"]))
    changed = [name, *args[:index], form, *args[index:]]
    assert analysed(tools, " ".join(changed))["class"] == "require-human", changed
