"""Assertion helpers for conformance tests: contract facts first, with messages that show the call.

Every failure message says what was called, what the clause expects, and what was seen, in the
style "expected X, but saw Y [read(path='a.txt')]".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .contract import ToolResult

NUMBERED = {
    "arrow": re.compile(r"^ *(\d+)\u2192(.*)$", re.S),
    "tab": re.compile(r"^ *(\d+)\t(.*)$", re.S),
}
NOTICE = re.compile(r"\n*\n\[[^\n]*\]\s*$")
OFFSET_HINT = re.compile(r"offset\s*=\s*(\d+)")


def _shown(result: ToolResult, limit: int = 600) -> str:
    text = result.text
    return text if len(text) <= limit else text[: limit // 2] + " ... " + text[-limit // 2 :]


def expect_ok(result: ToolResult, what: str = "") -> ToolResult:
    assert not result.is_error, (
        f"expected success{' (' + what + ')' if what else ''}, but the tool returned an error: "
        f"{_shown(result)!r}"
    )
    return result


def expect_error(result: ToolResult, *mentions: str, what: str = "") -> ToolResult:
    """An error result whose text mentions every string in ``mentions`` (case-insensitive)."""
    assert result.is_error, (
        f"expected an error result{' (' + what + ')' if what else ''}, but isError is false; "
        f"text: {_shown(result)!r}"
    )
    assert result.text.strip(), "an error result must say what went wrong, but its text is empty"
    lowered = result.text.lower()
    for mention in mentions:
        assert mention.lower() in lowered, (
            f"the error should mention {mention!r} so the model knows what to fix; "
            f"saw: {_shown(result)!r}"
        )
    return result


@dataclass(frozen=True)
class ReadPage:
    """A parsed read result: numbered lines (number, text) and the trailing notices."""

    lines: list[tuple[int, str]]
    notices: str

    @property
    def texts(self) -> list[str]:
        return [text for _, text in self.lines]

    @property
    def numbers(self) -> list[int]:
        return [number for number, _ in self.lines]


def parse_read(text: str, style: str, first_line: int = 1) -> ReadPage:
    """Split a read result into lines and notices. Lines split on ``\\n`` only (``\\r`` stays).

    Notices are the bracketed lines after the last blank line (``[Showing lines ...]``).
    With ``style='none'`` the lines are numbered from ``first_line``.
    """
    notices = ""
    body = text
    match = NOTICE.search(text)
    while match:
        notices = text[match.start() :] + notices
        body = body[: match.start()]
        match = NOTICE.search(body)
    if body == "":
        return ReadPage([], notices.strip())
    raw_lines = body.split("\n")
    if style == "none":
        # An unnumbered page is the file's text as is: its final LF ends the last line, it does
        # not start another one.
        if len(raw_lines) > 1 and raw_lines[-1] == "":
            raw_lines.pop()
        return ReadPage(list(enumerate(raw_lines, start=first_line)), notices.strip())
    pattern = NUMBERED[style]
    lines = []
    for raw in raw_lines:
        found = pattern.match(raw)
        if not found:
            raise AssertionError(
                f"a read output line does not carry a {style}-style line number: {raw!r:.120}"
            )
        lines.append((int(found.group(1)), found.group(2)))
    return ReadPage(lines, notices.strip())


def continuation_offset(result: ToolResult) -> int | None:
    """Where the next page starts: ``details.next_offset``, else ``offset=N`` in the text."""
    value = result.details.get("next_offset")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if result.details.get("has_more") is False:
        return None
    found = OFFSET_HINT.findall(result.text[-400:])
    return int(found[-1]) if found else None


def apply_unified_patch(old: str, patch: str) -> str:
    """Apply a unified diff to ``old`` (strictly: every context line must match)."""
    old_lines = re.findall(r"[^\n]*\n|[^\n]+$", old)
    out: list[str] = []
    position = 0
    lines = re.findall(r"[^\n]*\n|[^\n]+$", patch)
    i = 0
    hunk = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
    while i < len(lines):
        found = hunk.match(lines[i])
        if not found:
            i += 1
            continue
        start = int(found.group(1))
        count = int(found.group(2)) if found.group(2) is not None else 1
        begin = start - 1 if count else start
        out.extend(old_lines[position:begin])
        position = begin
        i += 1
        last_tag = ""
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            tag, body = line[:1], line[1:]
            if line.startswith("\\"):
                if last_tag in (" ", "+") and out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
                i += 1
                continue
            last_tag = tag
            if tag in (" ", "-"):
                expected = old_lines[position] if position < len(old_lines) else None
                if expected is None or expected.rstrip("\n") != body.rstrip("\n"):
                    raise AssertionError(
                        f"patch context does not match line {position + 1}: "
                        f"patch has {body!r:.80}, file has {expected!r:.80}"
                    )
                if tag == " ":
                    out.append(expected)
                position += 1
            elif tag == "+":
                out.append(body)
            i += 1
    out.extend(old_lines[position:])
    return "".join(out)


def first_difference(a: Sequence[str], b: Sequence[str]) -> int | None:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))
