"""The ``edit`` tool: replace exact text in a file, touching nothing else.

The file is decoded as it is (UTF-8 with or without BOM, UTF-16LE, or latin-1 for legacy bytes),
old text is located in a line-ending view and, failing that, a fuzzy view (``text_match``), and
only the located spans of the original text are replaced. New text takes the file's line ending.
Every edit of a call is matched against the original; any failure writes nothing.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from dataclasses import dataclass
from typing import Any

from . import diffing, fsport, paths, textcodec
from .arguments import Param, check
from .context import CallContext
from .results import ToolError, text_result
from .text_match import (
    FuzzyView,
    LineEndingView,
    Match,
    disproportionate,
    line_of,
    locate,
    to_lf,
)

FEATURES = ("edit.fuzzy", "edit.multi", "edit.replace_all", "edit.keep_utf16le", "edit.patch")
LIMITS = {"edit.diff_max_bytes": 1024 * 1024}
PARAMS = (
    Param("file_path", str, required=True),
    Param("old_string", str),
    Param("new_string", str),
    Param("replace_all", bool),
    Param("edits", list),
)
NUMBER_PREFIX = re.compile(r"^\s*\d+[\u2192\t](.*)$", re.S)
SHOWN_STARTS = 5


@dataclass(frozen=True)
class Edit:
    old: str
    new: str
    replace_all: bool


def _edits(args: dict[str, Any]) -> list[Edit]:
    has_single = "old_string" in args or "new_string" in args
    if "edits" in args and has_single:
        raise ToolError(
            "invalid_argument",
            "edit: give either old_string/new_string or edits, not both.",
        )
    if "edits" not in args:
        for name in ("old_string", "new_string"):
            if name not in args:
                raise ToolError("invalid_argument", f"edit: missing required argument {name!r}.")
        return [Edit(args["old_string"], args["new_string"], bool(args.get("replace_all")))]
    if "replace_all" in args:
        raise ToolError(
            "invalid_argument", "edit: replace_all goes inside each edits[i], not beside edits."
        )
    raw = args["edits"]
    if not raw:
        raise ToolError("invalid_argument", "edit: edits is empty; give at least one edit.")
    edits = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ToolError("invalid_argument", f"edit: edits[{index}] must be an object.")
        entry = check(
            f"edit: edits[{index}]",
            (
                Param("old_string", str, True),
                Param("new_string", str, True),
                Param("replace_all", bool),
            ),
            item,
        )
        edits.append(Edit(entry["old_string"], entry["new_string"], bool(entry.get("replace_all"))))
    return edits


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("edit", PARAMS, arguments)
    raw = paths.check_raw(args["file_path"], "file_path")
    edits = _edits(args)
    for index, edit in enumerate(edits):
        label = f"edits[{index}]." if len(edits) > 1 or "edits" in args else ""
        if edit.old == "":
            raise ToolError(
                "empty_old_string",
                f"edit: {label}old_string is empty. Quote the exact text to replace; to create "
                "or overwrite a whole file use write.",
            )
        if edit.old == edit.new:
            raise ToolError(
                "no_change",
                f"edit: {label}old_string and new_string are identical; nothing would change.",
            )
    path = paths.expand(raw, ctx.cwd, ctx.env)
    with ctx.queue.hold(path) as target:
        return _edit_locked(path, target, edits, ctx)


@dataclass(frozen=True)
class Document:
    """A file's text as decoded, with what is needed to write it back byte-compatibly."""

    text: str
    encoding: textcodec.Encoding
    mode: int
    ending: str


def _load(path: str, target: str) -> Document:
    if not os.path.lexists(target) or not os.path.exists(target):
        hint = paths.similar_names(target)
        tail = f" Did you mean: {', '.join(hint)}?" if hint else " Check the path, or use write."
        raise ToolError("not_found", f"File not found: {path}.{tail}")
    info = fsport.guard_readable(target)
    try:
        with open(target, "rb") as handle:
            data = handle.read()
    except PermissionError:
        raise ToolError(
            "permission_denied", f"Permission denied: cannot read {path}. Check its permissions."
        ) from None
    if data.startswith(textcodec.UTF16LE_BOM):
        encoding = textcodec.UTF16LE
    elif data.startswith(textcodec.UTF8_BOM):
        encoding = textcodec.UTF8_SIG
    elif b"\x00" in data[:8192]:
        raise ToolError(
            "binary_file",
            f"{path} looks like a binary file (it contains NUL bytes); edit changes text files "
            "only. Inspect it with bash `file` or `hexdump -C`.",
        )
    else:
        encoding = textcodec.UTF8
    body = data[len(encoding.bom) :]
    try:
        text = body.decode(encoding.codec)
    except UnicodeDecodeError:
        if encoding is not textcodec.UTF8:
            raise ToolError("undecodable", f"{path} is not valid {encoding.codec}.") from None
        encoding = textcodec.LATIN1
        text = body.decode("latin-1")
    return Document(
        text, encoding, stat.S_IMODE(info.st_mode), textcodec.dominant_line_ending(text)
    )


def _find(
    doc_view: LineEndingView, edit: Edit, fuzzy: list[FuzzyView], index: int | None, path: str
) -> tuple[list[Match], bool]:
    old = to_lf(edit.old)

    def fuzzy_view() -> FuzzyView:  # built once per call, shared by its edits
        if not fuzzy:
            fuzzy.append(FuzzyView(doc_view.text))
        return fuzzy[0]

    matches, used_fuzzy = locate(doc_view.text, old, fuzzy_view)
    where = f"edits[{index}]: " if index is not None else ""
    if not matches:
        raise ToolError(
            "not_found",
            f"{where}old_string was not found in {path}, not even with quotes, dashes, spaces "
            "and trailing whitespace normalised. Read the file again and copy the exact text "
            "(without line-number prefixes).",
        )
    if used_fuzzy:
        for match in matches:
            if disproportionate(old, doc_view.text[match.start : match.end]):
                raise ToolError(
                    "fuzzy_disproportionate",
                    f"{where}the only match for old_string in {path} is a fuzzy one spanning "
                    f"lines {line_of(doc_view.text, match.start)}-"
                    f"{line_of(doc_view.text, match.end)}, far larger than old_string; refusing. "
                    "Quote the exact text.",
                )
    if len(matches) > 1 and not edit.replace_all:
        lines = [line_of(doc_view.text, m.start) for m in matches[:SHOWN_STARTS]]
        more = f" (and {len(matches) - SHOWN_STARTS} more)" if len(matches) > SHOWN_STARTS else ""
        kind = " after normalising quotes, dashes and spaces" if used_fuzzy else ""
        raise ToolError(
            "ambiguous",
            f"{where}old_string occurs {len(matches)} times in {path}{kind}, starting at lines "
            f"{', '.join(map(str, lines))}{more}. Add surrounding lines to make it unique, or "
            "set replace_all to change every occurrence.",
            occurrences=len(matches),
            lines=lines,
        )
    return matches, used_fuzzy


def _plan(doc: Document, edits: list[Edit], path: str) -> tuple[str, int, bool]:
    """The new text, the number of replaced blocks, and whether any match was fuzzy."""
    view = LineEndingView(doc.text)
    fuzzy_cache: list[FuzzyView] = []
    spans: list[tuple[int, int, str, int]] = []
    used_fuzzy = False
    for index, edit in enumerate(edits):
        matches, fuzzy = _find(view, edit, fuzzy_cache, index if len(edits) > 1 else None, path)
        used_fuzzy = used_fuzzy or fuzzy
        replacement = to_lf(edit.new).replace("\n", doc.ending)
        for match in matches:
            start, end = view.to_original(match.start), view.to_original(match.end)
            spans.append((start, end, replacement, index))
    spans.sort()
    for (_, e1, _, i1), (s2, _, _, i2) in itertools.pairwise(spans):
        if s2 < e1:
            raise ToolError(
                "overlap",
                f"edits[{min(i1, i2)}] and edits[{max(i1, i2)}] overlap in {path}; every edit "
                "is matched against the original file, so merge them into one edit.",
            )
    parts = []
    position = 0
    for start, end, replacement, _ in spans:
        parts.append(doc.text[position:start])
        parts.append(replacement)
        position = end
    parts.append(doc.text[position:])
    return "".join(parts), len(spans), used_fuzzy


def _strip_numbers(text: str) -> str | None:
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        return None
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        found = NUMBER_PREFIX.match(line)
        if not found:
            return None
        out.append(found.group(1))
    return "\n".join(out)


def _strip_new(text: str) -> str:
    return "\n".join(
        (found.group(1) if (found := NUMBER_PREFIX.match(line)) else line)
        for line in text.split("\n")
    )


def _edit_locked(path: str, target: str, edits: list[Edit], ctx: CallContext) -> dict[str, Any]:
    if os.path.isdir(target):
        raise ToolError("is_directory", f"{path} is a directory; edit needs a file.")
    doc = _load(path, target)
    stripped = False
    try:
        new_text, blocks, fuzzy = _plan(doc, edits, path)
    except ToolError as first:
        if first.code != "not_found":
            raise
        retry = []
        for edit in edits:
            old = _strip_numbers(to_lf(edit.old))
            if old is None:
                raise first from None
            retry.append(Edit(old, _strip_new(to_lf(edit.new)), edit.replace_all))
        try:
            new_text, blocks, fuzzy = _plan(doc, retry, path)
        except ToolError:
            raise first from None
        stripped = True
    if new_text == doc.text:
        raise ToolError("no_change", f"The edit leaves {path} unchanged; nothing was written.")
    try:
        data = textcodec.encode(new_text, doc.encoding)
    except UnicodeEncodeError as exc:
        raise ToolError(
            "unencodable",
            f"new_string holds {new_text[exc.start : exc.end]!r}, which {path} "
            f"({doc.encoding.name}) cannot store. Use characters of that encoding.",
        ) from None
    try:
        fsport.atomic_replace(target, data, doc.mode)
    except PermissionError:
        raise ToolError("permission_denied", f"Permission denied: cannot write {path}.") from None
    details: dict[str, Any] = {
        "path": path,
        "replacements": blocks,
        "encoding": doc.encoding.name,
        "fuzzy": fuzzy,
    }
    if stripped:
        details["line_number_prefixes_stripped"] = True
    if len(doc.text) > ctx.limits["edit.diff_max_bytes"]:
        details["diff_omitted"] = "too_large"
    else:
        change = diffing.compute(doc.text, new_text, diffing.patch_label(path, ctx.cwd), 256 * 1024)
        details.update(
            diff=change.diff, patch=change.patch, firstChangedLine=change.first_changed_line
        )
    notes = []
    if fuzzy:
        notes.append("(matched after normalising quotes, dashes, spaces or trailing whitespace)")
    if stripped:
        notes.append("(line-number prefixes were stripped from old_string and new_string)")
    text = f"Successfully replaced {blocks} block(s) in {path}."
    if notes:
        text += " " + " ".join(notes)
    return text_result(text, **details)
