"""Checks on the text arguments of grep and glob, before anything reaches the system.

A NUL cannot travel in a command-line argument, an unpaired surrogate cannot be encoded for
one, and a single argument over 128 KiB makes the system refuse to start the search: each
becomes an error that says what was wrong and what to send instead (GREP-INPUT-01,
GLOB-INPUT-01), never an exception's text.
"""

from __future__ import annotations

import re

from pytest_agenttools.implementations.reference.results import ToolError

#: Longest glob pattern accepted (characters); no path a file system holds needs more.
MAX_GLOB_CHARS = 16 * 1024
#: Longest grep pattern accepted (characters); longer ones are passed to rg in a file.
MAX_PATTERN_CHARS = 1024 * 1024
#: Most glob patterns one grep call may pass.
MAX_GLOBS = 256


def first_surrogate(text: str) -> int | None:
    """The index of the first unpaired surrogate (U+D800..U+DFFF) in ``text``, or None."""
    for index, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return index
    return None


def check_text(value: str, tool: str, name: str, *, max_chars: int, what: str) -> str:
    """``value`` unchanged when it can be searched for; a clear ToolError otherwise."""
    if "\x00" in value:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} contains a NUL character (at index {value.index(chr(0))}), which "
            f"cannot be passed to the search. Remove it{_nul_hint(tool, name)}.",
        )
    bad = first_surrogate(value)
    if bad is not None:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} contains an unpaired surrogate (U+{ord(value[bad]):04X} at index "
            f"{bad}), which is not a character any file holds. Remove it or send the whole "
            "character it was part of.",
        )
    if len(value) > max_chars:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} is {len(value):,} characters long; {what} are at most "
            f"{max_chars:,}. Send a shorter {name}.",
        )
    return value


def glob_error(message: str) -> str:
    """What is wrong with a glob, from rg's "error parsing glob '<g>': <reason>" message."""
    found = re.search(r"error parsing glob '.*?': (.*)", message)
    return (found.group(1) if found else " ".join(message.split())).strip()[:300]


def _nul_hint(tool: str, name: str) -> str:
    if tool == "grep" and name == "pattern":
        return r" (to find NUL bytes, write \x00 in a regular expression)"
    return ""
