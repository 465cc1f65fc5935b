"""Strategies and parsers shared by the grep and glob suites.

The parsers read results the way the spec lays them out (one path per line; ``path:N:text`` in
content mode; bracketed notices after a blank line) and keep only paths that exist in the tree,
so an implementation's own "no matches" wording is never mistaken for a result.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from pytest_agenttools.assertions import NOTICE, continuation_offset, expect_ok

SENSITIVE_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl", ".ssh", ".aws", ".kube", ".gnupg")
SENSITIVE_FILES = (
    ".env",
    ".env.*",
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    ".npmrc",
    ".netrc",
    ".pgpass",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
)
CONTENT_LINE = re.compile(r"^(?P<path>.+?)(?P<sep>[:-])(?P<n>\d+)(?P=sep)(?P<text>.*)$", re.S)


def is_sensitive(rel: str) -> bool:
    """Whether a relative path is, or lies inside, something GREP-SENS-01 protects."""
    parts = [p.lower() for p in rel.split("/") if p]
    if any(p in SENSITIVE_DIRS for p in parts[:-1]):
        return True
    last = parts[-1] if parts else ""
    return last in SENSITIVE_DIRS or any(fnmatch.fnmatchcase(last, f) for f in SENSITIVE_FILES)


def body_lines(text: str) -> list[str]:
    """The result's lines without the trailing bracketed notices."""
    body = text
    match = NOTICE.search(body)
    while match:
        body = body[: match.start()]
        match = NOTICE.search(body)
    return [line for line in body.split("\n") if line != ""]


def listed_paths(text: str, root: Path) -> list[str]:
    """Lines that name an existing file below ``root`` (files mode, glob)."""
    return [line for line in body_lines(text) if (root / line).is_file()]


def content_lines(text: str, root: Path) -> list[tuple[str, int, str, bool]]:
    """``(path, line number, text, is_match)`` for content-mode lines naming existing files."""
    found = []
    for line in body_lines(text):
        parsed = CONTENT_LINE.match(line)
        if parsed and (root / parsed["path"]).is_file():
            found.append((parsed["path"], int(parsed["n"]), parsed["text"], parsed["sep"] == ":"))
    return found


def count_lines(text: str, root: Path) -> dict[str, int]:
    found = {}
    for line in body_lines(text):
        path, sep, number = line.rpartition(":")
        if sep and number.isdigit() and (root / path).is_file():
            found[path] = int(number)
    return found


def shown_paths(text: str, root: Path) -> list[str]:
    """Every existing path a result names, whatever the layout: a path line, ``path:N:text``,
    ``path-N-text`` or ``path:N``. For the secrecy clauses, which must hold in any output mode."""
    found = []
    for line in body_lines(text):
        candidates = [line]
        parsed = CONTENT_LINE.match(line)
        if parsed:
            candidates.append(parsed["path"])
        head, sep, tail = line.rpartition(":")
        if sep and tail.strip().isdigit():
            candidates.append(head)
        found += [c for c in candidates if c and (root / c).is_file()]
    return found


def page_through(tools: Any, tool: str, max_calls: int = 500, **arguments: Any) -> list[str]:
    """Follow continuation offsets from 0; return every body line of every page, in order."""
    lines: list[str] = []
    offset = 0
    for _ in range(max_calls):
        result = expect_ok(tools.call(tool, offset=offset, **arguments))
        page = body_lines(result.text)
        following = continuation_offset(result)
        if following is None:
            return lines + page
        assert page, f"{tool}(offset={offset}) showed nothing but offers offset={following}"
        assert following > offset, f"continuation offset {following} does not pass {offset}"
        lines += page
        offset = following
    raise AssertionError(f"still paging after {max_calls} calls")


# ---- hypothesis: random trees and random user globs ------------------------------------------

DIR_NAMES = ["src", "lib", ".ssh", ".git", ".aws", "node_modules", "Keys", ".config", "a"]
FILE_NAMES = [
    "a.py",
    "b.txt",
    ".env",
    ".env.local",
    ".ENV",
    "id_rsa",
    "id_ed25519",
    "server.pem",
    "TLS.PEM",
    "x.key",
    "cert.p12",
    ".npmrc",
    "notes.md",
    ".hidden",
    "config",
    "id_rsa.pub",
]
USER_GLOBS = [
    "*",
    "**/*",
    "**",
    ".*",
    "**/.env",
    ".env",
    ".env*",
    "*.pem",
    "*.PEM",
    "**/*.key",
    ".ssh/*",
    "**/.ssh/**",
    ".git/**",
    "**/id_*",
    "id_rsa",
    "*.{pem,py,key}",
    "{.env,a.py}",
    "**/config",
    "src/**",
    "!*.py",
    "[.]env",
]


@st.composite
def search_trees(draw: st.DrawFn, max_files: int = 8) -> dict[str, str]:
    """Relative path -> content; paths mix sensitive and ordinary names at several depths."""
    files: dict[str, str] = {}
    count = draw(st.integers(1, max_files))
    for _ in range(count):
        dirs = draw(st.lists(st.sampled_from(DIR_NAMES), max_size=2))
        name = draw(st.sampled_from(FILE_NAMES))
        files["/".join([*dirs, name])] = "needle\n"
    # a file cannot also be a directory: drop paths that would need one as a parent
    return {
        path: text
        for path, text in files.items()
        if not any(other.startswith(path + "/") for other in files)
    }


user_globs = st.sampled_from(USER_GLOBS)
#: Characters for literal searches: regex syntax, separators, spaces and non-ASCII, no line breaks.
SAFE_TEXT = st.sampled_from(list("ab.*+?()[]{}|\\^$:- \té中"))


def needle_lines(text: str, needle: str) -> Iterable[tuple[int, str]]:
    """What a plain scan finds: (line number, line) for lines containing ``needle``."""
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            yield number, line
