"""Order, page and describe search results (grep and glob share the rules, not the code paths).

Results are computed in full, ordered deterministically, and only then cut into a page, so that
``offset`` paging yields every result exactly once. Each tool writes its own text; this module
returns data and the continuation notice.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pytest_agenttools.implementations.reference.results import ToolError

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    """``start`` is the 0-based index of the first shown result; ``next_offset`` None at the end."""

    start: int
    shown: int
    total: int
    next_offset: int | None

    def details(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "offset": self.start,
            "shown": self.shown,
            "total": self.total,
            "has_more": self.next_offset is not None,
        }
        if self.next_offset is not None:
            found["next_offset"] = self.next_offset
        return found

    def notice(self, unit: str) -> str | None:
        """``[Showing files 1-100 of 250. Use offset=100 to continue.]`` when more follow
        (GREP-PRES-02, GLOB-PRES-02)."""
        if self.next_offset is None:
            return None
        first, last = self.start + 1, self.start + self.shown
        return (
            f"[Showing {unit} {first}-{last} of {self.total}. "
            f"Use offset={self.next_offset} to continue.]"
        )


def page_of(items: Sequence[T], offset: int, limit: int | None, cap: int) -> tuple[list[T], Page]:
    """Cut one page: at most ``min(limit, cap)`` results from ``offset`` (0-based).

    GREP-PAGE-01, GLOB-PAGE-01: pages of one fully ordered list never overlap or skip.
    """
    size = min(limit, cap) if limit else cap
    total = len(items)
    if total and offset >= total:
        raise ToolError(
            "offset_beyond_end",
            f"offset={offset} is past the last result: there are {total} result(s), so use an "
            f"offset from 0 to {total - 1}.",
            total=total,
        )
    chosen = list(items[offset : offset + size])
    end = offset + len(chosen)
    return chosen, Page(offset, len(chosen), total, end if end < total else None)


def check_offset_limit(args: dict[str, Any], tool: str) -> tuple[int, int | None]:
    offset = args.get("offset", 0)
    if offset < 0:
        raise ToolError(
            "invalid_argument",
            f"{tool}: offset must be 0 or more (results are counted from 0), got {offset}.",
        )
    limit = args.get("limit")
    if limit is not None and limit < 1:
        raise ToolError(
            "invalid_argument", f"{tool}: limit must be 1 or more, got {limit}. Omit it for a page."
        )
    return offset, limit


def newest_first(root: bytes, names: Sequence[bytes]) -> list[bytes]:
    """Sort relative names by modification time, newest first, ties by name."""

    def key(name: bytes) -> tuple[int, bytes]:
        try:
            mtime = os.stat(os.path.join(root, name), follow_symlinks=False).st_mtime_ns
        except OSError:
            mtime = 0
        return (-mtime, name)

    return sorted(names, key=key)


def decoded_name(raw: bytes) -> str:
    """A path as the observation carries it: UTF-8, with each undecodable byte as U+FFFD
    (GREP-PATH-03, GLOB-NAME-01)."""
    return raw.decode("utf-8", "replace")


def shown_name(raw: bytes) -> str:
    """A path as the text shows it: :func:`decoded_name` with a line break in the name written
    as ``\\n`` or ``\\r``, so that one name stays on one line and cannot pass for another
    result."""
    return decoded_name(raw).replace("\n", "\\n").replace("\r", "\\r")


def observed_path(directory: str, name: str, cwd: str) -> str:
    """A result path as the observation carries it: relative to the call's ``cwd`` (with ``/``)
    when the file lies below it, else absolute; normalised either way."""
    full = os.path.normpath(os.path.join(directory, name))
    relative = os.path.relpath(full, cwd)
    if relative == ".." or relative.startswith(".." + os.sep):
        return full
    return relative.replace(os.sep, "/")
