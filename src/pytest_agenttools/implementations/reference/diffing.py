"""Diff, unified patch and first changed line for a file's old and new text, bounded in time.

Returned as data; each tool decides whether to include it. Diffs of huge or binary files are
skipped by the caller: the write still happens, only the rendering is left out.

A line diff is quadratic in the worst case: ``difflib`` aligning 20,000 equal (blank) lines
compares every pair. The file has already been written when the diff runs, so it must never
keep the answer waiting. Common leading and trailing lines are set aside first (an edit's diff
is then only the changed region); the fine alignment of what remains runs only when its cost
(the number of equal-line pairs) is small, and under a deadline and the call's cancel flag.
Otherwise one hunk replaces the changed region: coarser, still a patch that applies.
"""

from __future__ import annotations

import difflib
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: most pairs of equal lines the fine alignment may consider (its cost per search step)
MAX_EQUAL_PAIRS = 1_000_000
#: longest the fine alignment may run before the coarse hunk is used instead
FINE_BUDGET_S = 0.5
CONTEXT = 3

Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class Change:
    """``coarse``: the changed region is shown as one hunk (the fine alignment was skipped)."""

    patch: str
    diff: str
    first_changed_line: int | None
    patch_truncated: bool = False
    diff_truncated: bool = False
    coarse: bool = False


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


class _OutOfBudget(Exception):
    pass


class _BoundedMatcher(difflib.SequenceMatcher[str]):
    """A SequenceMatcher that gives up (raises) once its deadline passes or the call is cancelled.

    Each search step costs at most the number of equal-line pairs, which the caller bounds, so
    the overshoot past the deadline is one bounded step.
    """

    def __init__(
        self, a: Sequence[str], b: Sequence[str], deadline: float, cancel: threading.Event | None
    ) -> None:
        self.deadline = deadline
        self.cancel = cancel
        super().__init__(None, a, b, autojunk=False)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        if time.monotonic() > self.deadline or (self.cancel is not None and self.cancel.is_set()):
            raise _OutOfBudget
        return super().find_longest_match(alo, ahi, blo, bhi)


def equal_pairs(a: Sequence[str], b: Sequence[str]) -> int:
    """How many (i, j) have ``a[i] == b[j]``: the cost of one step of the fine alignment."""
    counts = Counter(b)
    return sum(counts.get(line, 0) for line in a)


def opcodes(
    a: Sequence[str],
    b: Sequence[str],
    *,
    budget_s: float = FINE_BUDGET_S,
    cancel: threading.Event | None = None,
) -> tuple[list[Opcode], bool]:
    """Opcodes turning ``a`` into ``b`` (difflib's shape), and whether they are coarse."""
    prefix = 0
    limit = min(len(a), len(b))
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    a_mid, b_mid = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    middle: list[Opcode] = []
    coarse = False
    if a_mid and b_mid:
        try:
            if equal_pairs(a_mid, b_mid) > MAX_EQUAL_PAIRS:
                raise _OutOfBudget
            matcher = _BoundedMatcher(a_mid, b_mid, time.monotonic() + budget_s, cancel)
            middle = [
                (tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            ]
        except _OutOfBudget:
            coarse = True
            middle = [("replace", prefix, len(a) - suffix, prefix, len(b) - suffix)]
    elif a_mid:
        middle = [("delete", prefix, len(a) - suffix, prefix, prefix)]
    elif b_mid:
        middle = [("insert", prefix, prefix, prefix, len(b) - suffix)]
    codes: list[Opcode] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    codes += middle
    if suffix:
        codes.append(("equal", len(a) - suffix, len(a), len(b) - suffix, len(b)))
    return codes, coarse


def grouped(codes: list[Opcode], context: int = CONTEXT) -> Iterator[list[Opcode]]:
    """Hunks of opcodes with ``context`` equal lines around each change (difflib's grouping)."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


def _patch_line(prefix: str, line: str) -> str:
    return (
        prefix + line if line.endswith("\n") else f"{prefix}{line}\n\\ No newline at end of file\n"
    )


def unified(a: list[str], b: list[str], codes: list[Opcode], label: str) -> str:
    """A unified diff (``patch -p0`` applies it in the directory the label is relative to)."""
    out: list[str] = []
    for group in grouped(codes):
        if not out:
            out += [f"--- {label}\n", f"+++ {label}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [_patch_line(" ", line) for line in a[i1:i2]]
                continue
            out += [_patch_line("-", line) for line in a[i1:i2]]
            out += [_patch_line("+", line) for line in b[j1:j2]]
    return "".join(out)


def _cut(text: str, max_bytes: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    return data[:max_bytes].decode("utf-8", "ignore"), True


def compute(
    old: str,
    new: str,
    label: str,
    max_patch_bytes: int,
    *,
    cancel: threading.Event | None = None,
    budget_s: float = FINE_BUDGET_S,
) -> Change:
    """The patch (cut at ``max_patch_bytes``), the numbered display diff and the first changed
    line; bounded in time whatever the texts (see the module docstring)."""
    # ROBUST-EXTREME-02, ROBUST-CANCEL-01: bounded in time, stops on cancel
    a, b = _lines(old), _lines(new)
    codes, coarse = opcodes(a, b, budget_s=budget_s, cancel=cancel)
    patch, patch_truncated = _cut(unified(a, b, codes, label), max_patch_bytes)
    display: list[str] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            continue
        display.extend(f"-{i + 1:>5} {a[i].rstrip(chr(10))}" for i in range(i1, i2))
        display.extend(f"+{j + 1:>5} {b[j].rstrip(chr(10))}" for j in range(j1, j2))
    diff, diff_truncated = _cut("\n".join(display), max_patch_bytes)
    return Change(
        patch=patch,
        diff=diff,
        first_changed_line=first_changed_line(old, new),
        patch_truncated=patch_truncated,
        diff_truncated=diff_truncated,
        coarse=coarse,
    )
