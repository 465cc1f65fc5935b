"""Glob patterns as ripgrep reads them, translated to Python regular expressions.

ripgrep lets a ``--glob`` that matches a file override ``.gitignore``: a user glob ``*.py`` would
list a gitignored ``secret.py``. So grep and glob select files by name with a ripgrep file type
(types rank below ignore rules) and check patterns that contain ``/`` here, on the paths rg
printed. The dialect is gitignore's: a pattern without ``/`` matches a name at any depth, one with
``/`` is anchored at the search root (a leading ``/`` only anchors), ``*`` and ``?`` never match
``/``, ``**`` spans directories, ``[...]`` / ``[!...]`` classes, ``{a,b}`` alternatives.
"""

from __future__ import annotations

import re


def has_slash(pattern: str) -> bool:
    return "/" in pattern.rstrip("/")


def name_part(pattern: str) -> str:
    """The last path segment (what a file name must match); ``*`` when it cannot be split."""
    depth = 0
    start = 0
    for index, char in enumerate(pattern):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == "/" and depth == 0:
            start = index + 1
        elif char == "/" and depth:
            return "*"
    last = pattern[start:]
    return "*" if last in ("", "**") or "**" in last else last


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        char = glob[i]
        if glob.startswith("**", i):
            at_start = i == 0 or glob[i - 1] == "/"
            if at_start and glob.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if at_start and i + 2 == n:
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        elif char == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif char == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(glob[j], 0)
                j += 1
            if depth:
                out.append(re.escape(char))
            else:
                options = _split_alternatives(glob[i + 1 : j - 1])
                out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                i = j - 1
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _split_alternatives(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))
    return parts


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that full-matches the relative paths (``a/b.py``) the glob selects."""
    glob = pattern.rstrip("/")
    body = _translate(glob.lstrip("/")) if has_slash(glob) else "(?:.*/)?" + _translate(glob)
    return re.compile(body + r"\Z", re.S)
