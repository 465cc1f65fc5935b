"""The full answer of ``bash/analyze`` (class, risks, reusable prefix) and ``bash/match_rule``.

Permission rules, in the spelling of Claude Code and Reasonix:

- ``Bash(npm run test:*)`` is a prefix rule. It matches a command that is one simple statement
  (no ``&& || ; | &``, no newline, no comment), of class ``reusable`` (so no expansion,
  substitution, assignment, glob or redirect other than ``>/dev/null``, ``2>/dev/null``,
  ``2>&1``, and no risk), whose words, as the shell will see them, begin with the rule's words,
  word for word: ``npm run test`` and ``npm run 'test' -- --watch`` match; ``npm run test:unit``
  and ``npm run testing`` do not (another word), nor does ``go test ./... && rm -rf tmp`` for
  ``Bash(go test:*)``.
- ``Bash(git status --short)`` is an exact rule: it matches that text only, byte for byte, and
  only when the command is not ``require-human``; it is how a dynamic (``exact-only``) command is
  approved. A ``require-human`` command (a risk, a substitution, code the analysis cannot see)
  matches no rule: each run is asked.

A command's reusable ``prefix`` is what a prefix rule for it should name: for a single
``reusable`` statement, its name and, for the commands of ``SUBCOMMANDS``, the subcommand word (and
for those of ``NESTED``, one more word: ``npm run test``); anything else gets none (null), so only
an exact rule can approve it. A command behind a wrapper (``env``, ``time``, ``sudo`` …) gets none
either: a rule for the wrapper would cover every command.

BASH-AN-06 (a risk makes the class ``require-human``), BASH-AN-07 (the prefix), BASH-AN-08 (prefix
rules), BASH-AN-09 (exact rules).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any

from pytest_agenttools.implementations.reference import command_analysis, command_risk
from pytest_agenttools.implementations.reference.command_analysis import (
    HUMAN,
    RANK,
    REUSABLE,
    WRAPPERS,
    _parser,
    _words,
    split_top_level,
    static_word,
)

#: commands whose first argument is a subcommand, part of a reusable prefix
SUBCOMMANDS = {
    "git", "npm", "pnpm", "yarn", "bun", "deno", "npx", "cargo", "go", "docker", "podman",
    "kubectl", "helm", "pip", "pip3", "uv", "poetry", "make", "gh", "brew", "apt", "apt-get",
    "dotnet", "mvn", "gradle", "terraform", "conda", "rustup", "bundle", "rake", "composer",
}  # fmt: skip
#: (command, subcommand) pairs whose next word is part of the prefix too
NESTED = {
    ("npm", "run"), ("pnpm", "run"), ("yarn", "run"), ("bun", "run"), ("deno", "task"),
    ("git", "remote"), ("git", "stash"), ("git", "submodule"), ("git", "worktree"),
    ("docker", "compose"), ("docker", "container"), ("docker", "image"), ("go", "mod"),
    ("gh", "pr"), ("gh", "issue"), ("gh", "repo"), ("uv", "pip"), ("cargo", "llvm-cov"),
}  # fmt: skip
SUBCOMMAND_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]*")
RULE = re.compile(r"Bash\((?P<body>.*)\)", re.DOTALL)


def analyze(
    command: str, checks: Sequence[command_risk.Check] = command_risk.CALL_CHECKS
) -> dict[str, Any]:
    """``bash/analyze``: the classes of ``command_analysis.analyze`` raised by the risks of each
    part (BASH-AN-06: any risk makes it ``require-human``), the risks (BASH-AN-05) and the
    reusable prefix (BASH-AN-07)."""
    answer = command_analysis.analyze(command)
    answer["risks"] = []
    answer["prefix"] = None
    root = _parser().parse(command.encode("utf-8")).root_node
    if root.has_error:
        return answer
    statements = split_top_level(root)
    risks: list[dict[str, Any]] = []
    piped = command_risk.piped_into(root)
    for index, (statement, part) in enumerate(zip(statements, answer["parts"], strict=True)):
        found = command_risk.risks_of(statement, checks, piped)
        for risk in found:
            risks.append({"class": risk.cls, "part": index, "reason": risk.reason})
            reason = f"risk {risk.cls}: {risk.reason}"
            part["reasons"].append(reason)
            if reason not in answer["reasons"]:
                answer["reasons"].append(reason)
        if found:
            part["class"] = HUMAN
            answer["class"] = HUMAN
    answer["risks"] = risks
    answer["prefix"] = _prefix(root, answer)
    return answer


def _single_statement(root: Any) -> Any | None:
    """The one statement of a command that has no operator, newline or comment, else None."""
    children = [c for c in root.children if not (c.type == "\n" or _text_of(c) == "")]
    if len(children) != 1 or not children[0].is_named or children[0].type == "comment":
        return None
    statement = children[0]
    body = statement
    if statement.type == "redirected_statement":
        body = statement.child_by_field_name("body")
    return body if body is not None and body.type == "command" else None


def _text_of(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace").strip()


def words_of(command: str) -> list[str] | None:
    """The words of a single reusable statement as the shell sees them, else None."""
    if "\n" in command.strip():
        return None
    root = _parser().parse(command.encode("utf-8")).root_node
    if root.has_error:
        return None
    body = _single_statement(root)
    if body is None:
        return None
    _, nodes = _words(body)
    values = [static_word(n) for n in nodes]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def _prefix(root: Any, answer: dict[str, Any]) -> str | None:
    if answer["class"] != REUSABLE or len(answer["parts"]) != 1:
        return None
    body = _single_statement(root)
    if body is None:
        return None
    _, nodes = _words(body)
    values = [static_word(n) for n in nodes]
    if not values or any(v is None for v in values):
        return None
    words = [v for v in values if v is not None]
    base = words[0].rsplit("/", 1)[-1]
    if base in WRAPPERS or base in command_risk.RUNNERS:
        return None
    prefix = [words[0]]
    if base in SUBCOMMANDS and len(words) > 1 and SUBCOMMAND_WORD.fullmatch(words[1]):
        prefix.append(words[1])
        if (base, words[1]) in NESTED and len(words) > 2 and SUBCOMMAND_WORD.fullmatch(words[2]):
            prefix.append(words[2])
    return shlex.join(prefix)


def parse_rule(rule: Any) -> tuple[str, str]:
    """``("prefix", words)`` for ``Bash(P:*)``, ``("exact", text)`` for ``Bash(T)``; ValueError
    (a -32602 answer) for anything else."""
    found = RULE.fullmatch(rule) if isinstance(rule, str) else None
    if found is None or not found.group("body").strip():
        raise ValueError(f"bash/match_rule: rule must be Bash(COMMAND) or Bash(PREFIX:*): {rule!r}")
    body = found.group("body")
    if body.endswith(":*"):
        prefix = body[:-2]
        try:
            words = shlex.split(prefix)
        except ValueError:
            words = []
        if not words:
            raise ValueError(f"bash/match_rule: the prefix of {rule!r} is not shell words")
        return "prefix", shlex.join(words)
    return "exact", body


def match_rule(rule: str, command: str) -> dict[str, Any]:
    """``bash/match_rule {rule, command}`` -> ``{matches, kind, reason}`` (BASH-AN-08, -09)."""
    kind, value = parse_rule(rule)
    answer = analyze(command)
    if answer["class"] == HUMAN:
        return _said(False, kind, "the command requires a human: " + "; ".join(answer["reasons"]))
    if kind == "exact":
        if command == value:
            return _said(True, kind, "the command is the rule's exact text")
        return _said(False, kind, "an exact rule matches its own text only")
    if RANK[answer["class"]] > RANK[REUSABLE]:
        return _said(False, kind, "a dynamic command is approved by an exact rule only")
    words = words_of(command)
    if words is None:
        return _said(False, kind, "a prefix rule covers one simple command, no shell operators")
    wanted = shlex.split(value)
    if words[: len(wanted)] == wanted:
        return _said(True, kind, f"the command's words begin with {value}")
    return _said(False, kind, f"the command's words do not begin with {value}")


def _said(matches: bool, kind: str, reason: str) -> dict[str, Any]:
    return {"matches": matches, "kind": kind, "reason": reason}
