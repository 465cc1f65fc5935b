"""What every peer's deviation demos share: the entries of its expectations file, and the check
that each entry is shown by exactly one demo (a demo calls the peer's own tool and shows the
behaviour the entry names)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path


def expectation_entries(path: Path) -> dict[str, str]:
    """Each ``xfail`` and ``skip`` entry of an expectations file: its id and its reason."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for kind in ("xfail", "skip"):
        for entry in data.get(kind, []):
            assert entry["id"] not in found, f"{entry['id']} is listed twice"
            found[entry["id"]] = entry["reason"]
    return found


def assert_each_entry_shown_once(
    path: Path, demos: Iterable[tuple[str, Sequence[str]]], who: str
) -> None:
    """Every entry of ``path`` is shown by exactly one demo (its name and the entries it
    shows), no demo shows an entry the file no longer has, and each reason says something."""
    listed = expectation_entries(path)
    shown: dict[str, str] = {}
    for name, entries in demos:
        for ident in entries:
            assert ident not in shown, f"{ident}: shown by {shown[ident]!r} and {name!r}"
            shown[ident] = name
    assert sorted(set(listed) - set(shown)) == [], "entries no demo shows"
    assert sorted(set(shown) - set(listed)) == [], "demos of entries the file no longer has"
    for ident, reason in listed.items():
        assert len(reason) > 40, f"{ident}: say which behaviour of {who} breaks the clause"
