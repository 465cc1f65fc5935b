"""Locate old text in a file's text: exact first, then a fuzzy match that only locates.

Two views of the file are searched, each with a map back to the original characters:

- the *line-ending view* (CRLF and lone CR read as LF), so a model's LF text matches a CRLF file;
- the *fuzzy view*, per line: NFKC, trailing whitespace dropped, curly quotes, Unicode dashes and
  special spaces folded to ASCII.

A match in either view is mapped back to a span of the original text, and only that span is ever
replaced: every other character of the file stays exactly as it was.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a", " "),
        **dict.fromkeys("\u202f\u205f\u3000", " "),
    }
)
LINE_BREAK = re.compile(r"\r\n|\r")


def to_lf(text: str) -> str:
    return LINE_BREAK.sub("\n", text)


class LineEndingView:
    """``text`` with CRLF and lone CR as LF, and the map from its offsets to the original's.

    EDIT-EOL-01, EDIT-EOL-03: an LF old_string matches a CRLF or lone-CR file.
    """

    def __init__(self, original: str) -> None:
        self.original = original
        self.collapsed: list[int] = []  # view offsets of LFs that stand for a CRLF
        if "\r" not in original:
            self.text = original
            return
        parts: list[str] = []
        position = 0
        shift = 0
        for match in LINE_BREAK.finditer(original):
            parts.append(original[position : match.start()])
            parts.append("\n")
            if match.group() == "\r\n":
                self.collapsed.append(match.start() - shift)
                shift += 1
            position = match.end()
        parts.append(original[position:])
        self.text = "".join(parts)

    def to_original(self, offset: int) -> int:
        """Original offset of a view offset (a span end after a CRLF's LF takes both bytes)."""
        return offset + bisect.bisect_left(self.collapsed, offset)


def fold_line(line: str) -> tuple[str, list[int] | None, list[int] | None]:
    """Fuzzy form of one line (no LF) and, unless it is a plain prefix, per-char span maps.

    Characters are folded cluster by cluster (a starter and its combining marks), so NFKC can
    compose ``e`` + U+0301 into ``é``. ``starts[i]``/``ends[i]`` give the line offsets of the
    cluster that produced folded character ``i``.
    """
    if line.isascii():
        return line.rstrip(), None, None
    translated = line.translate(FOLD)  # one character for one: positions are unchanged
    if unicodedata.is_normalized("NFKC", translated):
        return translated.rstrip(), None, None
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    index = 0
    while index < len(line):
        end = index + 1
        while end < len(line) and unicodedata.combining(line[end]):
            end += 1
        folded = unicodedata.normalize("NFKC", line[index:end]).translate(FOLD)
        for ch in folded:
            chars.append(ch)
            starts.append(index)
            ends.append(end)
        index = end
    while chars and chars[-1].isspace():
        chars.pop()
        starts.pop()
        ends.pop()
    return "".join(chars), starts, ends


def fold(text: str) -> str:
    """The fuzzy form of a whole LF text (EDIT-FUZZ-01: what counts as the same text)."""
    return "\n".join(fold_line(line)[0] for line in text.split("\n"))


class FuzzyView:
    """The fuzzy form of an LF text, with the map from folded offsets to the text's offsets."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.line_starts_folded: list[int] = []
        self.line_starts_source: list[int] = []
        self.maps: list[tuple[list[int] | None, list[int] | None, int]] = []
        folded_lines: list[str] = []
        folded_pos = source_pos = 0
        for line in text.split("\n"):
            folded, starts, ends = fold_line(line)
            self.line_starts_folded.append(folded_pos)
            self.line_starts_source.append(source_pos)
            self.maps.append((starts, ends, len(line)))
            folded_lines.append(folded)
            folded_pos += len(folded) + 1
            source_pos += len(line) + 1
        self.text = "\n".join(folded_lines)

    def _locate(self, offset: int) -> tuple[int, int]:
        row = bisect.bisect_right(self.line_starts_folded, offset) - 1
        return row, offset - self.line_starts_folded[row]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map the folded span ``[start, end)`` (``end > start``) to a source span."""
        row, col = self._locate(start)
        starts, _, length = self.maps[row]
        folded_len = self._folded_len(row)
        if col >= folded_len:  # the LF that ends the line
            source_start = self.line_starts_source[row] + length
        else:
            source_start = self.line_starts_source[row] + (starts[col] if starts else col)
        row, col = self._locate(end - 1)
        _, ends, length = self.maps[row]
        if col >= self._folded_len(row):
            source_end = self.line_starts_source[row] + length + 1
        else:
            source_end = self.line_starts_source[row] + (ends[col] if ends else col + 1)
        return source_start, source_end

    def _folded_len(self, row: int) -> int:
        following = (
            self.line_starts_folded[row + 1] - 1
            if row + 1 < len(self.line_starts_folded)
            else len(self.text)
        )
        return following - self.line_starts_folded[row]


def find_all(haystack: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences, left to right (EDIT-RA-01)."""
    found: list[int] = []
    start = haystack.find(needle)
    while start >= 0:
        found.append(start)
        start = haystack.find(needle, start + len(needle))
    return found


@dataclass(frozen=True)
class Match:
    """A span of the LF view (``start``, ``end``) and how it was found."""

    start: int
    end: int
    fuzzy: bool


def locate(
    view_text: str, old: str, fuzzy_view: Callable[[], FuzzyView] | None = None
) -> tuple[list[Match], bool]:
    """All non-overlapping matches of ``old`` (an LF text): exact ones, or else fuzzy ones.

    Returns the matches and whether the fuzzy view was used. A fuzzy hit counts only if its
    source span folds back to the same text as ``old`` (EDIT-FUZZ-02: only that span is ever
    replaced). ``fuzzy_view`` supplies a (cached) fuzzy view of ``view_text``; it is built only
    when exact matching finds nothing (EDIT-FUZZ-03: an exact match wins).
    """
    exact = find_all(view_text, old)
    if exact:
        return [Match(s, s + len(old), False) for s in exact], False
    target = fold(old)
    if not target.strip():
        return [], True
    view = fuzzy_view() if fuzzy_view else FuzzyView(view_text)
    matches = []
    for start in find_all(view.text, target):
        source_start, source_end = view.span(start, start + len(target))
        if fold(view_text[source_start:source_end]) == target:
            matches.append(Match(source_start, source_end, True))
    return matches, True


def disproportionate(old: str, matched: str) -> bool:
    """A fuzzy hit far larger than what was asked for is refused (EDIT-FUZZ-05)."""
    old_lines = old.count("\n") + 1
    matched_lines = matched.count("\n") + 1
    if matched_lines >= max(old_lines + 3, 2 * old_lines):
        return True
    old_length, matched_length = len(old.strip()), len(matched.strip())
    return old_lines > 1 and matched_length > max(old_length + 500, 4 * old_length)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
