"""Shared by the edit suite modules: judging an edit on the bytes on disk and its observation.

Everything here judges what every correct implementation shares. The fuzzy normalisation used to
judge EDIT-FUZZ-02 is the kit's own, built from the spec's table ``edit.fuzzy_fold``; it never
asks the implementation (or the reference) what matches.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_agenttools import ToolClient, ToolResult, Workspace
from pytest_agenttools.harness.assertions import edit_obs, expect_error, expect_ok, resolve, shown
from pytest_agenttools.harness.observations import EditObservation
from pytest_agenttools.spec.clauses import spec_dir

BOM = b"\xef\xbb\xbf"
UTF16LE_BOM = b"\xff\xfe"
LINE_BREAK = re.compile(r"\r\n|\r")
#: EDIT-PRES-06: a suggestion to read again, as a word of its own (not "already", "thread")
READ_AGAIN = re.compile(r"(?<![A-Za-z])(?:re-?)?read(?:ing)?(?-i:(?![a-z]))", re.I)


def edit(tools: ToolClient, path: str = "f.txt", **arguments: Any) -> ToolResult:
    return tools.call("edit", file_path=path, **arguments)


@functools.cache
def spec_table(name: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Columns and rows of a ``[[table]]`` of the edit spec (read straight from its TOML)."""
    data = tomllib.loads((spec_dir() / "30-edit.toml").read_text(encoding="utf-8"))
    for table in data.get("table", []):
        if table["name"] == name:
            return tuple(table["columns"]), tuple(tuple(row) for row in table["rows"])
    raise KeyError(f"the edit spec has no table {name!r}")


@functools.cache
def fold_table() -> Mapping[int, str]:
    """Code point -> ASCII replacement, from the table ``edit.fuzzy_fold``."""
    columns, rows = spec_table("edit.fuzzy_fold")
    points, target = columns.index("code_points"), columns.index("folds_to")
    table: dict[int, str] = {}
    for row in rows:
        for point in row[points].split():
            table[int(point.removeprefix("U+"), 16)] = row[target]
    return table


def folded_characters(to: str | None = None) -> list[str]:
    """The characters the table folds (to ``to`` only, when given), for strategies."""
    return [chr(p) for p, target in sorted(fold_table().items()) if to is None or target == to]


def to_lf(text: str) -> str:
    return LINE_BREAK.sub("\n", text)


def fold(text: str) -> str:
    """The spec's fuzzy form of a text: line endings as LF, then per line NFKC, the table's
    characters folded, trailing whitespace dropped."""
    lines = to_lf(text).split("\n")
    return "\n".join(
        unicodedata.normalize("NFKC", line).translate(fold_table()).rstrip() for line in lines
    )


def expect_span_replaced(before: str, after: str, old: str, new: str) -> None:
    """EDIT-FUZZ-02: ``after`` is ``before`` with ONE span replaced by ``new``, and that span
    normalises to the same text as ``old``; every character outside it is unchanged.

    Any qualifying span is accepted (with or without trailing whitespace, for instance): correct
    implementations map a fuzzy match back to the original in different, equally valid ways.
    """
    target = fold(old)
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    growth = len(after) - len(before)
    for start in range(prefix + 1):
        end = start + len(new) - growth
        if end < start or end > len(before):
            continue
        if after[start : start + len(new)] != new or after[start + len(new) :] != before[end:]:
            continue
        if fold(before[start:end]) == target:
            return
    raise AssertionError(
        "the file is not the old one with one span (normalising to old_string) replaced by "
        f"new_string: bytes outside the matched span changed.\nold_string: {old!r}\n"
        f"new_string: {new!r}\nbefore: {before!r:.600}\nafter:  {after!r:.600}"
    )


def first_changed_line(before: str, after: str) -> set[int]:
    """The acceptable values of ``first_changed_line`` (lines split on LF, 1-based).

    When the new text is the old one with whole lines removed at its end, no line of the new
    file differs: the line after the new end and the new last line are both fair answers.
    """
    old, new = before.split("\n"), after.split("\n")
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return {number}
    if len(new) > len(old):
        return {len(old) + 1}
    return {len(new), len(new) + 1}


def same_file(observed: str, cwd: str, target: os.PathLike[str] | str) -> bool:
    """The observation's path (absolute or relative to cwd, maybe a link) names ``target``."""
    return os.path.realpath(resolve(observed, cwd)) == os.path.realpath(target)


@dataclass(frozen=True)
class Edited:
    result: ToolResult
    observation: EditObservation


def expect_edited(
    result: ToolResult,
    ws: Workspace,
    name: str,
    expected: bytes,
    *,
    replacements: int | None = None,
    before: bytes | None = None,
    codec: str = "latin-1",
) -> Edited:
    """A successful edit: the exact bytes on disk, and an observation that agrees with them
    (EDIT-OBS-01: the path, the count when known, the first changed line when given)."""
    expect_ok(result, "edit")
    actual = ws.get(name)
    assert actual == expected, (
        f"the file on disk is not the expected result of the edit\nexpected: {expected!r:.600}"
        f"\nactual:   {actual!r:.600}\n[{result.call.describe() if result.call else ''}]"
    )
    obs = edit_obs(result)
    assert same_file(obs.path, str(ws.root), ws.file(name)), (
        f"observation.path {obs.path!r} does not name the edited file {name!r} "
        f"(absolute, or relative to the working directory) {shown(result)}"
    )
    if replacements is not None:
        assert obs.replacements == replacements, (
            f"observation.replacements is {obs.replacements}, but {replacements} span(s) were "
            f"replaced {shown(result)}"
        )
    if before is not None and obs.first_changed_line is not None:
        body = len(BOM) if before.startswith(BOM) and expected.startswith(BOM) else 0
        allowed = first_changed_line(before[body:].decode(codec), expected[body:].decode(codec))
        assert obs.first_changed_line in allowed, (
            f"observation.first_changed_line is {obs.first_changed_line}, but the first line "
            f"that differs between the file before and after is line "
            f"{' or '.join(str(n) for n in sorted(allowed))}; the result's text was "
            f"{shown(result)}"
        )
    return Edited(result, obs)


@dataclass(frozen=True)
class Snapshot:
    """What a failed edit must leave as it was: the bytes, the inode, the modification time."""

    data: bytes
    inode: int
    mtime_ns: int
    files: tuple[str, ...]


def snapshot(ws: Workspace, name: str) -> Snapshot:
    info = os.stat(ws.file(name))
    return Snapshot(ws.get(name), info.st_ino, info.st_mtime_ns, tuple(ws.files()))


def aged(ws: Workspace, name: str, data: bytes | str) -> Snapshot:
    """Put a file with a modification time in the past, so any rewrite shows in its time."""
    target = ws.put(name, data)
    os.utime(target, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return snapshot(ws, name)


def expect_refused(result: ToolResult, ws: Workspace, name: str, before: Snapshot) -> ToolResult:
    """An error result, and the file exactly as it was (bytes, inode, time), no file added."""
    expect_error(result, what="the edit must be refused")
    after = snapshot(ws, name)
    assert after.data == before.data, (
        f"a refused edit changed the file: {before.data!r:.300} became {after.data!r:.300} "
        f"{shown(result)}"
    )
    assert (after.inode, after.mtime_ns) == (before.inode, before.mtime_ns), (
        f"a refused edit rewrote the file (same bytes, new inode or time) {shown(result)}"
    )
    assert after.files == before.files, (
        f"a refused edit created files: {sorted(set(after.files) - set(before.files))}"
    )
    return result


def expect_kept_encoding(
    data: bytes, before: bytes, expected: bytes, encoding: str = "utf-16-le"
) -> None:
    """After an edit that reported success, ``data`` (the file now) is ``expected`` (the edit, in
    the file's own encoding ``encoding``, its BOM kept); the message says what happened instead:
    the file was left unchanged, written in another encoding, or holds other content."""
    if data == expected:
        return
    name = encoding.upper()
    if data == before:
        raise AssertionError(f"the edit reported success but left the {name} file unchanged")
    bom = {"utf-16-le": UTF16LE_BOM}.get(encoding, b"")
    text = expected.removeprefix(bom).decode(encoding)
    for other in ("utf-8-sig", "utf-16", "latin-1"):
        try:
            decoded = data.decode(other)
        except UnicodeDecodeError:
            continue
        if to_lf(decoded) == to_lf(text):
            raise AssertionError(
                f"the {name} file holds the edit but was written in another encoding "
                f"({other}): {data[:200]!r}"
            )
    raise AssertionError(
        f"the {name} file does not hold the edit: expected {expected[:200]!r}, got {data[:200]!r}"
    )
