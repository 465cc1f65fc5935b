"""Turn the path a model typed into the file it meant.

Models copy paths out of screenshots, chat and terminals: a leading ``@``, ``file://``, ``~``,
non-breaking spaces, a macOS screenshot name with U+202F before AM/PM, a decomposed accent, a
curly apostrophe. ``read`` tries these spellings in a fixed order and takes the first that exists;
tools that create files use only the plain expansion, so they never write to a guessed name.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from urllib.parse import unquote

from pytest_agenttools.implementations.reference.results import ToolError

SPECIAL_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
AM_PM = re.compile(r" (AM|PM)\.")


def check_raw(raw: object, name: str = "path") -> str:
    """Validate a path argument's value before any file system access."""
    if not isinstance(raw, str):
        raise ToolError(
            "invalid_argument",
            f"{name} must be a string, got {type(raw).__name__}. Pass the file path as text.",
        )
    if raw == "" or raw.strip() == "":
        raise ToolError("invalid_argument", f"{name} is empty. Pass the path of a file.")
    if "\x00" in raw:
        raise ToolError(
            "invalid_argument",
            f"{name} contains a NUL byte, which no file name can hold: {raw!r}. "
            "Check the path for stray characters.",
        )
    try:
        os.fsencode(raw)
    except UnicodeEncodeError as exc:
        raise ToolError(
            "invalid_argument",
            f"{name} holds {raw[exc.start : exc.end]!r} at index {exc.start}, an unpaired "
            "surrogate that names no file. Check the path for stray characters.",
        ) from None
    return raw


def expand(raw: str, cwd: str, env: Mapping[str, str] | None = None) -> str:
    """The plain expansion every tool applies: ``file://``, ``~``, relative to ``cwd``.

    ``.`` and repeated slashes are dropped; ``..`` is resolved as the kernel resolves it
    (WRITE-PATH-01): after a symbolic link to a directory it climbs from the
    link's target, not from the directory holding the link, so ``link/../x`` names the same
    file for the tools as for ``cat link/../x`` in a shell.
    """
    path = raw
    if path.startswith("file://"):
        path = unquote(path[len("file://") :])
    if path == "~" or path.startswith("~/"):
        home = (env or {}).get("HOME") or os.path.expanduser("~")
        path = home + path[1:]
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return physical_join(path)


def physical_join(path: str) -> str:
    """An absolute ``path`` without ``.``, ``..`` or repeated slashes, as the kernel reads it.

    Components are spelled as given (a symbolic link stays a link in the result) except where
    ``..`` follows one: there the link is resolved first, because the kernel climbs from the
    directory the link points to. A ``..`` after a component that does not exist is taken
    lexically: the kernel would refuse such a path, and a tool that creates missing parents
    makes the component first, after which the two agree.
    """
    out = "/"
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            out = os.path.join(out, part)
        elif os.path.islink(out):
            out = os.path.dirname(os.path.realpath(out))
        else:
            out = os.path.dirname(out)
    return out


def _normalised(raw: str) -> str:
    path = SPECIAL_SPACES.sub(" ", raw)
    if path.startswith("@"):
        path = path[1:]
    return path


def read_candidates(raw: str, cwd: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Every spelling ``read`` tries, in order, without duplicates."""
    base = _normalised(raw)
    spellings = [
        raw,
        base,
        AM_PM.sub("\u202f\\1.", base),
        unicodedata.normalize("NFD", base),
        base.replace("'", "\u2019"),
        unicodedata.normalize("NFD", base.replace("'", "\u2019")),
    ]
    seen: list[str] = []
    for spelling in spellings:
        full = expand(spelling, cwd, env)
        if full not in seen:
            seen.append(full)
    return seen


def resolve_for_read(raw: str, cwd: str, env: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """The first existing spelling, and whether it differs from the literal one.

    When none exists the literal expansion is returned, so the error names what was asked for.
    """
    literal = expand(raw, cwd, env)
    if os.path.lexists(literal):  # the common case: no other spelling is worked out
        return literal, False
    candidates = read_candidates(raw, cwd, env)
    for candidate in candidates:
        if os.path.lexists(candidate):
            return candidate, candidate != candidates[0]
    return candidates[0], False


def similar_names(path: str, limit: int = 3) -> list[str]:
    """Names in the same directory that look like the missing one, for the error message."""
    import difflib

    directory, name = os.path.split(path)
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    # a name that is not UTF-8 (held as surrogate escapes) cannot be passed back as a path
    # argument, so it is never suggested
    return difflib.get_close_matches(name, [e for e in entries if _is_utf8(e)], limit, 0.6)


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
