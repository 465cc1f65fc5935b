"""Static analysis of a bash command with tree-sitter-bash: how far a permission may reach.

Classes, from weakest to strongest need for review:

- ``reusable``: a static command; a prefix rule for it can be reused for later calls;
- ``exact-only``: the meaning depends on the shell at run time (parameter, arithmetic or tilde
  expansion, assignments, unquoted globs, brace expansion, heredocs, redirects other than
  ``>/dev/null``, ``2>/dev/null``, ``2>&1``): only this exact text may be approved;
- ``require-human``: the command runs code the analysis cannot see (command or process
  substitution, a dynamic command name, ``eval``/``source``/``.``/``xargs``, a shell or an
  interpreter given inline code, ``find -exec``, awk with an inline program, compound commands,
  anything that does not parse).

A command is split at the top level on ``&& || ; | &``; its class is the highest of its parts.
It fails closed: whatever is not understood is ``require-human``. ``keepalive`` is true only
when some statement is backgrounded with ``&`` and some call's static name (after assignments
and ``command``/``env`` wrappers) is ``nohup``, ``disown`` or ``setsid``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

REUSABLE, EXACT, HUMAN = "reusable", "exact-only", "require-human"
RANK = {REUSABLE: 0, EXACT: 1, HUMAN: 2}
SEPARATORS = {"&&", "||", ";", "|", "&", "|&", "\n", ";;"}
SPLIT_NODES = {"program", "list", "pipeline"}
SAFE_REDIRECTS = {">/dev/null", "2>/dev/null", "2>&1"}
KEEPALIVE_NAMES = {"nohup", "disown", "setsid"}
WRAPPERS = {"sudo", "builtin", "nohup", "setsid", "command", "env", "time", "nice"}
INDIRECT = {"eval", "source", ".", "xargs", "exec"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"}
INLINE_FLAGS: dict[str, set[str]] = {
    "python": {"-c"},
    "python3": {"-c"},
    "python2": {"-c"},
    "node": {"-e", "--eval", "-p", "--print"},
    "ruby": {"-e"},
    "perl": {"-e", "-E"},
    "php": {"-r"},
    "pwsh": {"-command", "-c", "-encodedcommand"},
    "powershell": {"-command", "-c", "-encodedcommand"},
    "cmd": {"/c", "/k"},
    "cmd.exe": {"/c", "/k"},
}
FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
AWKS = {"awk", "gawk", "mawk", "nawk"}
AWK_FILE_FLAGS = {"-f", "--file", "-E", "--exec"}
GLOB_CHARS = set("*?[")
DYNAMIC_NODES = {"expansion", "simple_expansion"}
SUBSTITUTIONS = {"command_substitution", "process_substitution"}


@dataclass
class Verdict:
    """A class with the reasons that raised it there."""

    cls: str = REUSABLE
    reasons: list[str] = field(default_factory=list)

    def raise_to(self, cls: str, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)
        if RANK[cls] > RANK[self.cls]:
            self.cls = cls


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def static_word(node: Any) -> str | None:
    """The literal value of a word, or None when it depends on the shell at run time."""
    if node.type in ("word", "number"):
        text = _text(node)
        return None if "\\" in text or text.startswith("~") else text
    if node.type == "raw_string":
        return _text(node)[1:-1]
    if node.type == "string":
        parts = [c for c in node.named_children]
        if all(c.type == "string_content" for c in parts):
            return "".join(_text(c) for c in parts)
        return None
    if node.type == "concatenation":
        values = [static_word(c) for c in node.named_children]
        return None if any(v is None for v in values) else "".join(v for v in values if v)
    return None


def _walk(node: Any) -> Any:
    yield node
    for child in node.children:
        yield from _walk(child)


def split_top_level(root: Any) -> list[Any]:
    """The top-level parts of a command, split on ``&& || ; | &``."""
    parts: list[Any] = []
    for child in root.children:
        if child.type in SPLIT_NODES:
            parts.extend(split_top_level(child))
        elif child.is_named and child.type != "comment":
            parts.append(child)
    return parts


def _words(command: Any) -> tuple[list[Any], list[Any]]:
    """A command's prefix assignments and its words (name first)."""
    assignments = [c for c in command.named_children if c.type == "variable_assignment"]
    words: list[Any] = []
    for child in command.named_children:
        if child.type == "command_name":
            words.append(child.named_children[0] if child.named_children else child)
        elif child.type not in ("variable_assignment", "file_redirect", "herestring_redirect"):
            words.append(child)
    return assignments, words


def effective_call(command: Any, verdict: Verdict | None) -> tuple[str | None, list[str | None]]:
    """The static name and arguments after wrappers (``sudo``, ``env A=1``, ``command`` ...)."""
    assignments, words = _words(command)
    if assignments and verdict is not None:
        verdict.raise_to(EXACT, "assignment")
    values = [static_word(w) for w in words]
    while values:
        name = values[0]
        if name is None:
            return None, values[1:]
        if name not in WRAPPERS:
            return name, values[1:]
        values = values[1:]
        if name == "env":
            while values and values[0] is not None and ("=" in values[0] or values[0][:1] == "-"):
                if "=" in values[0] and verdict is not None:
                    verdict.raise_to(EXACT, "assignment")
                values = values[1:]
        elif name in ("sudo", "nice", "setsid", "command"):
            while values and values[0] is not None and values[0][:1] == "-":
                values = values[1:]
    return "", []


def _check_call(name: str, args: list[str | None], verdict: Verdict) -> None:
    base = name.rsplit("/", 1)[-1]
    flags = [a for a in args if a is not None]
    if base in INDIRECT:
        verdict.raise_to(HUMAN, f"{base} runs code the analysis cannot see")
    elif base in SHELLS and any(
        f.startswith("-") and not f.startswith("--") and "c" in f for f in flags
    ):
        verdict.raise_to(HUMAN, f"{base} -c runs an inline script")
    elif base in INLINE_FLAGS and any(f.lower() in INLINE_FLAGS[base] for f in flags):
        verdict.raise_to(HUMAN, f"{base} runs inline code")
    elif base == "find" and any(f in FIND_EXEC for f in flags):
        verdict.raise_to(HUMAN, "find -exec runs other commands")
    elif base in AWKS and not any(f in AWK_FILE_FLAGS for f in flags):
        verdict.raise_to(HUMAN, f"{base} with an inline program")


def _check_redirect(node: Any, verdict: Verdict) -> None:
    if node.type == "heredoc_redirect":
        verdict.raise_to(EXACT, "heredoc")
    elif node.type == "herestring_redirect":
        verdict.raise_to(EXACT, "here-string")
    elif node.type == "file_redirect":
        compact = "".join(_text(node).split())
        if compact not in SAFE_REDIRECTS:
            verdict.raise_to(EXACT, f"redirect {compact}")


def _check_word(node: Any, verdict: Verdict) -> None:
    if node.type == "word":
        text = _text(node)
        if any(ch in GLOB_CHARS for ch in text):
            verdict.raise_to(EXACT, "unquoted glob")
        if text.startswith(("@(", "!(", "+(")):
            verdict.raise_to(EXACT, "extglob")
    elif node.type == "concatenation":
        pieces = [_text(c) for c in node.children]
        if "{" in pieces and "}" in pieces:
            verdict.raise_to(EXACT, "brace expansion")
    elif node.type == "brace_expression":
        verdict.raise_to(EXACT, "brace expansion")
    elif node.type == "extglob_pattern":
        verdict.raise_to(EXACT, "extglob")


def _check_part(part: Any, verdict: Verdict) -> None:
    body = part
    if part.type == "redirected_statement":
        body = part.child_by_field_name("body")
        for child in part.named_children:
            if child is not body and child.type.endswith("redirect"):
                _check_redirect(child, verdict)
        if body is None:
            verdict.raise_to(EXACT, "redirect without a command")
            return
    if body.type == "negated_command":
        inner = body.named_children[0] if body.named_children else None
        if inner is None:
            verdict.raise_to(HUMAN, "cannot analyse this statement")
            return
        body = inner
    if body.type == "variable_assignment" or body.type == "variable_assignments":
        verdict.raise_to(EXACT, "assignment")
        return
    if body.type != "command":
        verdict.raise_to(HUMAN, f"compound command ({body.type}) is not analysed")
        return
    for child in body.named_children:
        if child.type.endswith("redirect"):
            _check_redirect(child, verdict)
    name, args = effective_call(body, verdict)
    if name is None:
        verdict.raise_to(HUMAN, "dynamic command name")
    elif name:
        _check_call(name, args, verdict)
    for child in body.named_children:
        if child.type not in ("command_name", "variable_assignment"):
            for node in _walk(child):
                _check_word(node, verdict)


def _check_everywhere(root: Any, verdict: Verdict) -> None:
    for node in _walk(root):
        if node.type in SUBSTITUTIONS:
            verdict.raise_to(HUMAN, node.type.replace("_", " "))
        elif node.type in DYNAMIC_NODES:
            verdict.raise_to(EXACT, "parameter expansion")
        elif node.type == "arithmetic_expansion":
            verdict.raise_to(EXACT, "arithmetic expansion")
        elif node.type == "word" and _text(node).startswith("~"):
            verdict.raise_to(EXACT, "tilde expansion")


def keepalive(root: Any) -> bool:
    backgrounded = any(not n.is_named and n.type == "&" for n in _walk(root))
    if not backgrounded:
        return False
    for node in _walk(root):
        if node.type == "command":
            name, _ = _keepalive_name(node)
            if name in KEEPALIVE_NAMES:
                return True
    return False


def _keepalive_name(command: Any) -> tuple[str | None, list[str | None]]:
    """The static call name skipping assignments and ``command``/``env`` wrappers only."""
    _, words = _words(command)
    values = [static_word(w) for w in words]
    while values and values[0] in ("command", "env"):
        wrapper, values = values[0], values[1:]
        if wrapper == "env":
            while values and values[0] is not None and ("=" in values[0] or values[0][:1] == "-"):
                values = values[1:]
    return (values[0], values[1:]) if values else ("", [])


def analyze(command: str) -> dict[str, Any]:
    """The class, reasons, top-level parts and keepalive flag of ``command``: BASH-AN-01 (the
    classes), BASH-AN-02 (split, highest wins, fail closed), BASH-AN-03 (keepalive), BASH-AN-04
    (depends on what the shell does, not on spelling)."""
    tree = _parser().parse(command.encode("utf-8"))
    root = tree.root_node
    if root.has_error:
        return {
            "class": HUMAN,
            "reasons": ["the command does not parse"],
            "parts": [],
            "keepalive": False,
        }
    parts = []
    overall = Verdict()
    for part in split_top_level(root):
        verdict = Verdict()
        _check_part(part, verdict)
        _check_everywhere(part, verdict)
        parts.append({"text": _text(part), "class": verdict.cls, "reasons": verdict.reasons})
        overall.cls = max(overall.cls, verdict.cls, key=RANK.__getitem__)
        overall.reasons.extend(r for r in verdict.reasons if r not in overall.reasons)
    if not parts:
        overall.raise_to(HUMAN, "empty command")
    return {
        "class": overall.cls,
        "reasons": overall.reasons,
        "parts": parts,
        "keepalive": keepalive(root),
    }


def keepalive_of(command: str) -> bool:
    """True when a finished command's backgrounded keepalive processes may outlive it."""
    try:
        root = _parser().parse(command.encode("utf-8")).root_node
    except Exception:  # fail closed: no keepalive
        return False
    return False if root.has_error else keepalive(root)
