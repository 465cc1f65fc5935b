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


def selects_by_name(pattern: str) -> bool:
    """Whether the pattern selects by file name alone, so that matching its ``name_part``
    selects exactly the same paths: no ``/``, or only a leading ``**/`` (which spans any depth,
    none included; ``/**/`` too, while ``/*.py`` stays anchored)."""
    rest = pattern[1:] if pattern.startswith("/**/") else pattern
    while rest.startswith("**/"):
        rest = rest[3:]
    return not has_slash(rest)


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


# --- the bash and minimatch dialects ---------------------------------------------------------
# A tool may declare another glob dialect (manifest ``dialect.glob``). These match the whole
# relative path, anchored at the search directory: a pattern without ``/`` names top-level files
# only. ``**`` alone in a segment spans zero or more directories; elsewhere it is ``*``. A name
# that starts with ``.`` is matched only by a segment that starts with ``.`` unless ``dot`` is
# set (bash without ``dotglob``; minimatch's ``dot`` option). Braces expand first, as in bash.

MAX_ALTERNATIVES = 1024


class GlobSyntaxError(ValueError):
    """A pattern that cannot be read in the dialect (the message says why)."""


def expand_braces(pattern: str, limit: int = MAX_ALTERNATIVES) -> list[str]:
    """``a{b,c}d`` -> ``[abd, acd]`` (nested, left to right); unbalanced braces stay literal."""
    start = -1
    depth = 0
    escaped = False
    for index, char in enumerate(pattern):
        if escaped:  # the character after a backslash is literal, a brace too
            escaped = False
            continue
        if char == "\\":
            escaped = True
            continue
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                body = pattern[start + 1 : index]
                options = _split_alternatives(body)
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[index + 1 :]
                out: list[str] = []
                for option in options:
                    for rest in expand_braces(head + option + tail, limit):
                        out.append(rest)
                        if len(out) > limit:
                            raise GlobSyntaxError(
                                f"the braces expand to more than {limit} alternatives"
                            )
                return list(dict.fromkeys(out))
    return [pattern]


def _segment(segment: str, dot: bool) -> str:
    """One path segment (no ``/``) as a regex. A whole-segment ``**`` never gets here; inside a
    segment :func:`_translate` reads any run of stars as ``*`` (``***`` too: collapsing its
    first two stars first would have left a ``**`` that spans directories)."""
    body = _translate(segment) if segment else ""
    if not dot and not segment.startswith("."):
        return r"(?!\.)" + body
    return body


def compile_anchored(pattern: str, *, dot: bool) -> re.Pattern[str]:
    """A regex that full-matches the relative file paths a bash/minimatch pattern selects."""
    alternatives = []
    for expanded in expand_braces(pattern):
        text = expanded
        while text.startswith("./"):
            text = text[2:]
        segments = text.split("/")
        any_name = r"[^/]+" if dot else r"(?!\.)[^/]+"
        parts: list[str] = []
        for index, segment in enumerate(segments):
            last = index == len(segments) - 1
            if segment == "**":
                # a final ** lists every file below; elsewhere it spans zero or more directories
                parts.append(f"(?:{any_name}/)*{any_name}" if last else f"(?:{any_name}/)*")
            elif last and segment == "":
                parts.append(r"(?!)")  # a trailing slash names directories, never a file
            else:
                parts.append(_segment(segment, dot) + ("" if last else "/"))
        alternatives.append("".join(parts))
    return re.compile("(?:" + "|".join(alternatives) + r")\Z", re.S)
