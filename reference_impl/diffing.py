"""Diff, unified patch and first changed line for a file's old and new text.

Returned as data; each tool decides whether to include it. Diffs of huge or binary files are
skipped by the caller: the write still happens, only the rendering is left out.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Change:
    patch: str
    diff: str
    first_changed_line: int | None
    patch_truncated: bool = False


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, ends kept: a ``\\r`` is content, as it is for read."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def patch_label(path: str, cwd: str) -> str:
    """The file name in patch headers: relative to cwd when inside it, so ``patch -p0`` applies."""
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith("..") else relative


def first_changed_line(old: str, new: str) -> int | None:
    """1-based line of the new text where it first differs from the old; None if equal."""
    if old == new:
        return None
    old_lines, new_lines = old.split("\n"), new.split("\n")
    for number, (a, b) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if a != b:
            return number
    return min(len(old_lines), len(new_lines)) + (0 if len(old_lines) > len(new_lines) else 1)


def compute(old: str, new: str, label: str, max_patch_bytes: int) -> Change:
    old_lines, new_lines = _lines(old), _lines(new)
    patch_lines = []
    for line in difflib.unified_diff(old_lines, new_lines, fromfile=label, tofile=label):
        patch_lines.append(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        )
    patch = "".join(patch_lines)
    truncated = False
    if len(patch.encode("utf-8", "surrogatepass")) > max_patch_bytes:
        patch = patch.encode("utf-8", "surrogatepass")[:max_patch_bytes].decode("utf-8", "ignore")
        truncated = True
    display: list[str] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        display.extend(f"-{i + 1:>5} {old_lines[i].rstrip(chr(10))}" for i in range(i1, i2))
        display.extend(f"+{j + 1:>5} {new_lines[j].rstrip(chr(10))}" for j in range(j1, j2))
    return Change(
        patch=patch,
        diff="\n".join(display),
        first_changed_line=first_changed_line(old, new),
        patch_truncated=truncated,
    )
