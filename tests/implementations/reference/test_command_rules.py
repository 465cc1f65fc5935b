"""The reference's risk checks and rule matcher: what the tables of the suite do not pin."""

from __future__ import annotations

import pytest

from pytest_agenttools.implementations.reference import command_analysis, command_risk
from pytest_agenttools.implementations.reference import command_rules as rules

HOME = command_risk.HOME_DIR


def _call(command: str) -> command_risk.Call:
    root = command_analysis._parser().parse(command.encode()).root_node
    (node,) = [n for n in command_analysis._walk(root) if n.type == "command"]
    return command_risk.call_of(node)


@pytest.mark.parametrize(
    ("command", "wrappers", "name", "args"),
    [
        ("rm -rf /", (), "rm", ("-rf", "/")),
        ("sudo -u root rm -rf /", ("sudo",), "rm", ("-rf", "/")),
        ("env A=1 -i nice -n 5 /bin/rm x", ("env", "nice"), "rm", ("x",)),
        ("rm -rf ~ '~' \"$HOME\" $X", (), "rm", ("-rf", HOME, "~", HOME, None)),
        ("sudo", ("sudo",), "", ()),
        ("$tool x", (), None, ("x",)),
    ],
)
def test_a_call_is_seen_through_its_wrappers(
    command: str, wrappers: tuple[str, ...], name: str | None, args: tuple[str | None, ...]
) -> None:
    call = _call(command)
    assert (call.wrappers, call.name, call.args) == (wrappers, name, args)


def test_each_risk_is_reported_once_with_its_part() -> None:
    answer = rules.analyze("ls; rm -rf / /* && sudo rm -rf ~")
    assert answer["risks"] == [
        {"class": "delete-root", "part": 1, "reason": "rm -r of the root directory"},
        {"class": "delete-home", "part": 2, "reason": "rm -r of the home directory"},
        {"class": "privileged", "part": 2, "reason": "runs with another user's privileges"},
    ], "one entry per class and part, however many targets name it"
    assert [p["class"] for p in answer["parts"]] == ["reusable", "require-human", "require-human"]
    assert "risk delete-root: rm -r of the root directory" in answer["reasons"]


def test_an_unparsed_command_has_no_risk_and_no_prefix() -> None:
    answer = rules.analyze("rm -rf / '")
    assert (answer["class"], answer["risks"], answer["prefix"]) == ("require-human", [], None)


def test_the_checks_can_be_narrowed() -> None:
    narrowed = [c for c in command_risk.CALL_CHECKS if c is not command_risk.force_push]
    assert rules.analyze("git push -f origin main", narrowed)["risks"] == []
    assert rules.analyze("git push -f origin main")["class"] == "require-human"


@pytest.mark.parametrize(
    ("rule", "parsed"),
    [
        ("Bash(npm  run 'test':*)", ("prefix", "npm run test")),
        ("Bash(git status)", ("exact", "git status")),
        ("Bash(a:*:*)", ("prefix", "'a:*'")),
    ],
)
def test_rules_are_parsed(rule: str, parsed: tuple[str, str]) -> None:
    assert rules.parse_rule(rule) == parsed


@pytest.mark.parametrize("rule", ["Bash", "bash(ls)", "Bash( )", 'Bash("a:*)', 7, None])
def test_a_bad_rule_is_a_value_error(rule: object) -> None:
    with pytest.raises(ValueError, match=r"^bash/match_rule: "):
        rules.parse_rule(rule)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("npm run test", "the command's words begin with npm run test"),
        ("npm run testing", "the command's words do not begin with npm run test"),
        ("npm run test && ls", "a prefix rule covers one simple command, no shell operators"),
        ("npm run test > x", "a dynamic command is approved by an exact rule only"),
        ("npm run test $(x)", "the command requires a human: command substitution"),
    ],
)
def test_a_match_says_why(command: str, reason: str) -> None:
    assert rules.match_rule("Bash(npm run test:*)", command)["reason"] == reason


def test_a_redirect_alone_has_no_words() -> None:
    assert rules.words_of("> x") is None
    assert rules.words_of("ls\nls") is None
    assert rules.words_of("ls '") is None
    assert rules.words_of("ls 'a b'") == ["ls", "a b"]
