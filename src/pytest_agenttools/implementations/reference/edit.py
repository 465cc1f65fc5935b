"""The ``edit`` tool: replace exact text in a file, touching nothing else.

The file is decoded as it is (UTF-8 with or without BOM, UTF-16LE, or latin-1 for legacy bytes),
old text is located in a line-ending view and, failing that, a fuzzy view (``text_match``), and
only the located spans of the original text are replaced. New text takes the file's line ending.
Every edit of a call is matched against the original; any failure writes nothing.

The steps are functions with their collaborators as parameters (``run(..., steps=Steps(...))``,
``plan(..., find=)``), and the file system is reached through ``EditOps``: a variant of the
reference swaps one step or the port, never patches this module.
"""

from __future__ import annotations

import codecs
import itertools
import os
import re
import stat
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pytest_agenttools.implementations.reference import diffing, fsport, paths, textcodec
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.results import ToolError, text_result
from pytest_agenttools.implementations.reference.text_match import (
    FuzzyView,
    LineEndingView,
    Match,
    disproportionate,
    line_of,
    locate,
    to_lf,
)

FEATURES = ("edit.fuzzy", "edit.multi", "edit.replace_all", "edit.keep_utf16le", "edit.patch")
LIMITS = {"edit.diff_max_bytes": 1024 * 1024, "edit.max_file_bytes": 128 * 1024 * 1024}
#: how often a call waiting on its edit's work looks at the cancel switch (seconds)
CANCEL_POLL_S = 0.05
PATCH_MAX_BYTES = 256 * 1024
PARAMS = (
    Param("file_path", str, required=True),
    Param("old_string", str),
    Param("new_string", str),
    Param("replace_all", bool),
    Param("edits", list),
)
ENTRY_PARAMS = (
    Param("old_string", str, True),
    Param("new_string", str, True),
    Param("replace_all", bool),
)
#: a read-style line-number prefix: arrow (the reference's read) or tab (``cat -n``)
NUMBER_PREFIX = re.compile(r"^\s*\d+[\u2192\t](.*)$", re.S)
SHOWN_STARTS = 5


class EditOps:
    """How edit touches the file system; a variant swaps this port, not the module."""

    def kind(self, target: str) -> str:
        """``missing``, ``directory`` or ``file`` (anything else that exists)."""
        if not os.path.lexists(target) or not os.path.exists(target):
            return "missing"
        return "directory" if os.path.isdir(target) else "file"

    def inspect(self, target: str) -> os.stat_result:
        """The stat of the target, refusing devices, FIFOs and sockets (EDIT-KEEP-01: mode)."""
        return fsport.guard_readable(target)

    def read_bytes(self, target: str) -> bytes:
        fd = fsport.open_for_read(target)
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def replace(
        self,
        target: str,
        data: bytes | fsport.Pieces,
        mode: int,
        cancel: threading.Event | None = None,
    ) -> None:
        """EDIT-KEEP-01: the new bytes (or pieces, in order) land atomically with the old
        permission bits; a cancel between chunks leaves the file as it was."""
        fsport.atomic_replace(target, data, mode, cancel)


OPS = EditOps()


@dataclass(frozen=True)
class Edit:
    old: str
    new: str
    replace_all: bool


@dataclass(frozen=True)
class Request:
    """A checked call: the raw path, its edits, and whether they came as ``edits``."""

    raw_path: str
    edits: tuple[Edit, ...]
    multi: bool

    def label(self, index: int) -> str:
        """How an error names one edit: ``edits[1].`` in a multi-edit call, nothing otherwise."""
        return f"edits[{index}]." if self.multi else ""


def _entry(where: str, values: Mapping[str, Any], label: str) -> Edit:
    """One edit, checked whole: EDIT-EMPTY-02 (empty old text), EDIT-NOCHANGE-02 (identical)."""
    checked = check(where, ENTRY_PARAMS, values)
    old, new = checked["old_string"], checked["new_string"]
    if old == "":
        raise ToolError(
            "empty_old_string",
            f"edit: {label}old_string is empty. Quote the exact text to replace; to create "
            "or overwrite a whole file use write.",
        )
    if old == new:
        raise ToolError(
            "no_change",
            f"edit: {label}old_string and new_string are identical; nothing would change.",
        )
    return Edit(old, new, bool(checked.get("replace_all")))


def parse(arguments: Any) -> Request:
    """Every argument checked in one pass (EDIT-ARG-02), each error naming the argument
    (EDIT-PRES-02)."""
    args = check("edit", PARAMS, arguments)
    raw = paths.check_raw(args["file_path"], "file_path")
    if "edits" not in args:
        single = {k: args.get(k) for k in ("old_string", "new_string", "replace_all")}
        return Request(raw, (_entry("edit", single, ""),), multi=False)
    if "old_string" in args or "new_string" in args:
        raise ToolError(
            "invalid_argument",
            "edit: give either old_string/new_string or edits, not both.",
        )
    if "replace_all" in args:
        raise ToolError(
            "invalid_argument", "edit: replace_all goes inside each edits[i], not beside edits."
        )
    if not args["edits"]:
        raise ToolError("invalid_argument", "edit: edits is empty; give at least one edit.")
    edits = []
    for index, item in enumerate(args["edits"]):
        if not isinstance(item, Mapping):
            raise ToolError("invalid_argument", f"edit: edits[{index}] must be an object.")
        edits.append(_entry(f"edit: edits[{index}]", item, f"edits[{index}]."))
    return Request(raw, tuple(edits), multi=True)


@dataclass(frozen=True)
class Document:
    """A file's text as decoded, with what is needed to write it back byte-compatibly."""

    text: str
    encoding: textcodec.Encoding
    mode: int
    ending: str


def _binary(path: str) -> ToolError:
    return ToolError(
        "binary_file",
        f"{path} looks like a binary file (it contains NUL bytes); edit changes text files "
        "only. Inspect it with bash `file` or `hexdump -C`.",
    )


def _read(path: str, target: str, ops: EditOps) -> bytes:
    try:
        return ops.read_bytes(target)
    except PermissionError:
        raise ToolError(
            "permission_denied", f"Permission denied: cannot read {path}. Check its permissions."
        ) from None


def load(path: str, target: str, ops: EditOps) -> Document:
    """Decode the file as it is: EDIT-BOM-01 (BOM kept apart), EDIT-ENC-01 and EDIT-ENC-03
    (UTF-16LE kept), EDIT-ENC-02 (legacy bytes as latin-1, so they round-trip), EDIT-BIN-01
    (NUL: refused)."""
    info = ops.inspect(path)  # the path as named: a link to /dev/stdin is refused, not followed
    data = _read(path, target, ops)
    if data.startswith(textcodec.UTF16LE_BOM):
        encoding = textcodec.UTF16LE
    elif data.startswith(textcodec.UTF8_BOM):
        encoding = textcodec.UTF8_SIG
    elif b"\x00" in data[:8192]:
        raise _binary(path)
    else:
        encoding = textcodec.UTF8
    body = data[len(encoding.bom) :]
    try:
        text = body.decode(encoding.codec)
    except UnicodeDecodeError:
        if encoding is not textcodec.UTF8:
            raise ToolError(
                "undecodable",
                f"{path} starts with a {encoding.name} byte order mark but is not valid "
                f"{encoding.codec}; edit will not guess. Inspect it with bash `hexdump -C`.",
            ) from None
        encoding = textcodec.LATIN1
        text = body.decode("latin-1")
    # EDIT-EOL-01/02/03: replacements take the file's first line ending
    return Document(
        text, encoding, stat.S_IMODE(info.st_mode), textcodec.dominant_line_ending(text)
    )


Finder = Callable[
    [LineEndingView, Edit, list[FuzzyView], int | None, str], tuple[list[Match], bool]
]


def find_matches(
    view: LineEndingView, edit: Edit, fuzzy: list[FuzzyView], index: int | None, path: str
) -> tuple[list[Match], bool]:
    """Where one edit applies, in the LF view: EDIT-EXACT-01, EDIT-FUZZ-01/03/05, EDIT-UNIQ-02
    and EDIT-FUZZ-06 (several matches without replace_all: the error gives the count and start
    lines, EDIT-PRES-03), EDIT-NOTFOUND-02 (the error names the file, EDIT-PRES-05, and says to
    read it again, EDIT-PRES-06)."""
    old = to_lf(edit.old)  # EDIT-EOL-01: a CRLF old_string matches too

    def fuzzy_view() -> FuzzyView:  # built once per call, shared by its edits
        if not fuzzy:
            fuzzy.append(FuzzyView(view.text))
        return fuzzy[0]

    matches, used_fuzzy = locate(view.text, old, fuzzy_view)
    where = f"edits[{index}]: " if index is not None else ""
    extra = {"edit": index} if index is not None else {}
    if not matches:
        raise ToolError(
            "not_found",
            f"{where}old_string was not found in {path}, not even with quotes, dashes, spaces "
            "and trailing whitespace normalised. Read the file again and copy the exact text "
            "(without line-number prefixes).",
            missing="old_string",
            **extra,
        )
    if used_fuzzy:
        for match in matches:
            if disproportionate(old, view.text[match.start : match.end]):  # EDIT-FUZZ-05
                raise ToolError(
                    "fuzzy_disproportionate",
                    f"{where}the only match for old_string in {path} is a fuzzy one spanning "
                    f"lines {line_of(view.text, match.start)}-"
                    f"{line_of(view.text, match.end)}, far larger than old_string; refusing. "
                    "Quote the exact text.",
                    **extra,
                )
    if len(matches) > 1 and not edit.replace_all:
        lines = [line_of(view.text, m.start) for m in matches[:SHOWN_STARTS]]
        more = f" (and {len(matches) - SHOWN_STARTS} more)" if len(matches) > SHOWN_STARTS else ""
        kind = " after normalising quotes, dashes and spaces" if used_fuzzy else ""
        raise ToolError(
            "ambiguous",
            f"{where}old_string occurs {len(matches)} times in {path}{kind}, starting at lines "
            f"{', '.join(map(str, lines))}{more}. Add surrounding lines to make it unique, or "
            "set replace_all to change every occurrence.",
            occurrences=len(matches),
            lines=lines,
            **extra,
        )
    return matches, used_fuzzy


@dataclass(frozen=True)
class Span:
    """A span of the original text to replace, and the edit it belongs to."""

    start: int
    end: int
    replacement: str
    edit: int


def spans(
    doc: Document, edits: Sequence[Edit], path: str, find: Finder = find_matches
) -> tuple[list[Span], bool]:
    """Every replaced span, in file order, each edit matched against the original
    (EDIT-MULTI-01), and whether any match was fuzzy."""
    view = LineEndingView(doc.text)
    fuzzy_cache: list[FuzzyView] = []
    found: list[Span] = []
    used_fuzzy = False
    for index, edit in enumerate(edits):
        matches, fuzzy = find(view, edit, fuzzy_cache, index if len(edits) > 1 else None, path)
        used_fuzzy = used_fuzzy or fuzzy
        # EDIT-LIT-01, EDIT-RA-02: the replacement is text, never a pattern; its line breaks
        # take the file's first ending for every occurrence (EDIT-RA-03)
        replacement = to_lf(edit.new).replace("\n", doc.ending)
        for match in matches:  # EDIT-RA-01: every occurrence with replace_all
            start, end = view.to_original(match.start), view.to_original(match.end)
            found.append(Span(start, end, replacement, index))
    found.sort(key=lambda s: (s.start, s.end))
    return found, used_fuzzy


def check_overlaps(found: Sequence[Span], path: str) -> None:
    """EDIT-MULTI-04: overlapping edits have no defined result; the call fails whole, and the
    error names both edits (EDIT-PRES-04)."""
    for first, second in itertools.pairwise(found):
        if second.start < first.end:
            low, high = sorted((first.edit, second.edit))
            raise ToolError(
                "overlap",
                f"edits[{low}] and edits[{high}] overlap in {path}; every edit is matched "
                "against the original file, so merge them into one edit.",
                edits=[low, high],
            )


def assemble(text: str, found: Sequence[Span]) -> str:
    """The text with every span replaced; bytes outside the spans are kept as they are
    (EDIT-EXACT-01, EDIT-EOL-02, EDIT-FUZZ-02, EDIT-PROP-01)."""
    parts = []
    position = 0
    for span in found:
        parts.append(text[position : span.start])
        parts.append(span.replacement)
        position = span.end
    parts.append(text[position:])
    return "".join(parts)


@dataclass(frozen=True)
class Plan:
    text: str
    replacements: int
    fuzzy: bool


def plan(doc: Document, edits: Sequence[Edit], path: str, find: Finder = find_matches) -> Plan:
    """The new text: all edits or none (EDIT-MULTI-03)."""
    found, fuzzy = spans(doc, edits, path, find)
    check_overlaps(found, path)
    return Plan(assemble(doc.text, found), len(found), fuzzy)


Planner = Callable[[Document, Sequence[Edit], str], Plan]


def strip_numbers(text: str, prefix: re.Pattern[str] = NUMBER_PREFIX) -> str | None:
    """EDIT-LN-02: ``text`` without read-style line-number prefixes, or None unless every
    non-empty line carries one."""
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        return None
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        found = prefix.match(line)
        if not found:
            return None
        out.append(found.group(1))
    return "\n".join(out)


def _strip_new(text: str, prefix: re.Pattern[str]) -> str:
    return "\n".join(
        (found.group(1) if (found := prefix.match(line)) else line) for line in text.split("\n")
    )


def _plan_with_retry(
    doc: Document,
    edits: Sequence[Edit],
    path: str,
    planner: Planner,
    prefix: re.Pattern[str] = NUMBER_PREFIX,
) -> tuple[Plan, bool]:
    """The plan, retried once without line-number prefixes when old text was not found
    (EDIT-LN-02); a failed retry reports the first error."""
    try:
        return planner(doc, edits, path), False
    except ToolError as first:
        if first.code != "not_found":
            raise
        retry = []
        for edit in edits:
            old = strip_numbers(to_lf(edit.old), prefix)
            if old is None:
                raise first from None
            retry.append(Edit(old, _strip_new(to_lf(edit.new), prefix), edit.replace_all))
        try:
            return planner(doc, retry, path), True
        except ToolError:
            raise first from None


def _check_cancel(ctx: CallContext, path: str) -> None:
    if ctx.cancel.is_set():
        raise ToolError(
            "aborted",
            f"The edit of {path} was cancelled; nothing was written, the file is as it was.",
        )


Differ = Callable[..., diffing.Change]


@dataclass(frozen=True)
class Steps:
    """The replaceable steps of one edit (a variant of the reference passes its own)."""

    plan: Planner = plan
    retry_line_numbers: bool = True
    #: the read-style prefix the retry strips (a variant whose read numbers lines another way)
    number_prefix: re.Pattern[str] = NUMBER_PREFIX
    diff: Differ = diffing.compute


def run(arguments: Any, ctx: CallContext, *, steps: Steps = Steps()) -> dict[str, Any]:
    request = parse(arguments)
    path = paths.expand(request.raw_path, ctx.cwd, ctx.env)
    ops = ctx.ops_for("edit", OPS)
    with ctx.queue.hold(path) as target:  # EDIT-QUEUE-01, EDIT-KEEP-01 (links: the real file)
        return _edit_locked(path, target, request, ctx, ops, steps)


def _edit_locked(
    path: str, target: str, request: Request, ctx: CallContext, ops: EditOps, steps: Steps
) -> dict[str, Any]:
    kind = ops.kind(target)
    if kind == "missing":  # EDIT-NF-02; the errors name the file (EDIT-PRES-05)
        hint = paths.similar_names(target)
        tail = f" Did you mean: {', '.join(hint)}?" if hint else " Check the path, or use write."
        raise ToolError("not_found", f"File not found: {path}.{tail}", missing="file")
    if kind == "directory":
        raise ToolError("is_directory", f"{path} is a directory; edit needs a file.")
    size = ops.inspect(target).st_size
    cap = ctx.limits["edit.max_file_bytes"]
    if size > cap:
        raise ToolError(
            "too_large",
            f"{path} is {size} bytes; edit changes files of at most {cap} bytes "
            "(edit.max_file_bytes), because it decodes the whole file. Change it with bash "
            "instead (`sed -i`, or a script that streams the file).",
            path=path,
        )
    _check_cancel(ctx, path)
    # the work runs where a cancel need not wait for it: the call answers at once, and the
    # abandoned work is dropped when it ends (it never writes)
    diff_max = ctx.limits["edit.diff_max_bytes"]
    if size > diff_max and steps.plan is plan and _own_port(ops):
        found = _interruptible(ctx, path, _prepare_bytes, path, target, request, ops, diff_max)
        if found is not None:  # otherwise the text path below decides, and words any error
            _write(ctx, ops, path, target, found.pieces, found.mode)
            return found.answer
    doc, result, stripped, data = _interruptible(
        ctx, path, _prepare, path, target, request, ops, steps
    )
    _write(ctx, ops, path, target, data, doc.mode)
    del data
    return _result(path, doc, result, stripped, ctx, steps.diff)


def _write(
    ctx: CallContext, ops: EditOps, path: str, target: str, data: bytes | fsport.Pieces, mode: int
) -> None:
    _check_cancel(ctx, path)  # the last moment at which a cancel leaves the file untouched
    try:
        ops.replace(target, data, mode, ctx.cancel)
    except PermissionError:
        raise ToolError("permission_denied", f"Permission denied: cannot write {path}.") from None
    except OSError as exc:
        raise ToolError("io_error", f"Cannot write {path}: {exc.strerror or exc}.") from None


def _own_port(ops: Any) -> bool:
    """The port reads and replaces as the reference's does, looking through ports that only
    check and hand on (confinement's keeps the port it wraps as ``base``)."""
    while getattr(type(ops), "DELEGATES", False):
        ops = ops.base
    kind = type(ops)
    return kind.read_bytes is EditOps.read_bytes and kind.replace is EditOps.replace


@dataclass
class BytesEdit:
    """An edit worked out on the file's bytes: the new content as pieces, and the answer."""

    pieces: fsport.Pieces
    mode: int
    answer: dict[str, Any]


#: bytes decoded at a time to check that a file is UTF-8 (the text is not kept)
CHECK_CHUNK = 1024 * 1024


def _text_length(view: memoryview) -> int | None:
    """The number of characters of ``view`` as UTF-8, or None if it is not UTF-8; decoded a
    chunk at a time so the text is never held whole."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    length = 0
    try:
        for at in range(0, len(view), CHECK_CHUNK):
            length += len(decoder.decode(view[at : at + CHECK_CHUNK]))
        length += len(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        return None
    return length


def _prepare_bytes(
    path: str, target: str, request: Request, ops: EditOps, diff_max: int
) -> BytesEdit | None:
    """A large file's exact edit done on its bytes, the output streamed from views of them: one
    copy of the file in memory (a decoded text, its edited copy and their encoding would be
    four). Only where that gives the same bytes and the same answer as the text path: UTF-8 or
    latin-1 without a CR (no line-ending view), every edit found exactly, where it may be, not
    overlapping, and a text over ``edit.diff_max_bytes`` (no diff is shown). Otherwise None:
    the text path decides, and words any error."""
    info = ops.inspect(path)
    data = _read(path, target, ops)
    if data.startswith(textcodec.UTF16LE_BOM) or b"\r" in data:
        return None
    encoding = textcodec.UTF8_SIG if data.startswith(textcodec.UTF8_BOM) else textcodec.UTF8
    body = len(encoding.bom)
    if encoding is textcodec.UTF8 and b"\x00" in data[:8192]:
        raise _binary(path)
    if encoding.bom and data.startswith(encoding.bom, body):
        return None  # a second BOM: the text path drops it
    view = memoryview(data)
    length = _text_length(view[body:])
    if length is None:
        if encoding.bom:
            return None
        encoding, length = textcodec.LATIN1, len(data)
    if length <= diff_max:
        return None
    found: list[tuple[int, int, bytes]] = []
    try:
        for edit in request.edits:
            old = to_lf(edit.old).encode(encoding.codec)
            new = to_lf(edit.new).encode(encoding.codec)  # no CR in the file: the ending is LF
            starts = []
            at = data.find(old, body)
            while at >= 0:
                starts.append(at)
                at = data.find(old, at + len(old))
            if not starts or (len(starts) > 1 and not edit.replace_all):
                return None
            found.extend((start, start + len(old), new) for start in starts)
    except UnicodeEncodeError:
        return None
    found.sort(key=lambda span: (span[0], span[1]))
    if any(second[0] < first[1] for first, second in itertools.pairwise(found)):
        return None
    pieces: list[bytes | memoryview] = []
    position = 0
    for start, end, new in found:
        pieces += [view[position:start], new]
        position = end
    pieces.append(view[position:])
    first_line = _first_changed_line(data, body, pieces)
    if first_line is None:
        return None  # the edits leave the file as it was
    answer = _summary(path, len(found), encoding, False, False, first_line)
    answer["details"]["diff_omitted"] = "too_large"
    return BytesEdit(tuple(pieces), stat.S_IMODE(info.st_mode), answer)


def _first_changed_line(data: bytes, body: int, pieces: Sequence[bytes | memoryview]) -> int | None:
    """``diffing.first_changed_line`` of the file's text and the text ``pieces`` make, on bytes
    (the LF byte is LF in UTF-8 and latin-1): the line of the first byte that differs, one more
    when the old text ends there and the new goes on with an LF. None when they are equal."""
    position = 0
    for piece in pieces:
        size = len(piece)
        if not data.startswith(piece, position):  # the first difference is in this piece
            low, high = 0, min(size, len(data) - position)
            while low < high:  # the longest prefix of the piece the file has there
                middle = (low + high + 1) // 2
                if data.startswith(piece[:middle], position):
                    low = middle
                else:
                    high = middle - 1
            differs = position + low
            line = data.count(b"\n", body, differs) + 1
            if differs == len(data) and piece[low : low + 1] == b"\n":
                line += 1
            return line
        position += size
    if position == len(data):
        return None
    return data.count(b"\n", body, position) + 1  # the new text ends where the old goes on


def _prepare(
    path: str, target: str, request: Request, ops: EditOps, steps: Steps
) -> tuple[Document, Plan, bool, bytes]:
    """Load, plan and encode: everything before the write, none of it touching the file."""
    doc = load(path, target, ops)
    if steps.retry_line_numbers:
        result, stripped = _plan_with_retry(
            doc, request.edits, path, steps.plan, steps.number_prefix
        )
    else:
        result, stripped = steps.plan(doc, request.edits, path), False
    if result.text == doc.text:  # EDIT-NOCHANGE-02
        raise ToolError("no_change", f"The edit leaves {path} unchanged; nothing was written.")
    try:
        data = textcodec.encode(result.text, doc.encoding)
    except UnicodeEncodeError as exc:
        raise ToolError(
            "unencodable",
            f"new_string holds {result.text[exc.start : exc.end]!r}, which {path} "
            f"({doc.encoding.name}) cannot store. Use characters of that encoding.",
        ) from None
    return doc, result, stripped, data


T = TypeVar("T")


def _interruptible(ctx: CallContext, path: str, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` on a thread of its own while this one watches the cancel switch: a
    cancel is answered within CANCEL_POLL_S whatever the work is doing (ROBUST-CANCEL-01 at
    any size). Without a thread to spare, the work runs here."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run_work() -> None:
        try:
            box["value"] = work(*args)
        except BaseException as exc:  # handed to the waiting call, raised there
            box["error"] = exc
        finally:
            done.set()

    try:
        threading.Thread(target=run_work, daemon=True, name="agenttools-edit").start()
    except RuntimeError:
        return work(*args)
    while not done.wait(CANCEL_POLL_S):
        _check_cancel(ctx, path)
    if "error" in box:
        error = box.pop("error")
        try:
            raise error
        finally:
            del error
    value: T = box.pop("value")
    return value


def _result(
    path: str, doc: Document, result: Plan, stripped: bool, ctx: CallContext, diff: Differ
) -> dict[str, Any]:
    """The answer: EDIT-OBS-01 (observation), EDIT-DETAILS-01 (patch), EDIT-PRES-01 (the text
    names the file; its exact wording is EDIT-GOLD-01)."""
    first_line = diffing.first_changed_line(doc.text, result.text)
    answer = _summary(path, result.replacements, doc.encoding, result.fuzzy, stripped, first_line)
    details = answer["details"]
    observation = details["observation"]
    if len(doc.text) > ctx.limits["edit.diff_max_bytes"]:
        details["diff_omitted"] = "too_large"
    else:
        # EDIT-BOUND-01: bounded in time, whatever the text (a coarse hunk past the budget)
        change = diff(
            doc.text,
            result.text,
            diffing.patch_label(path, ctx.cwd),
            PATCH_MAX_BYTES,
            cancel=ctx.cancel,
        )
        details.update(
            diff=change.diff, patch=change.patch, firstChangedLine=change.first_changed_line
        )
        if change.coarse:
            details["diff_coarse"] = True
        if change.patch_truncated:
            details["patch_truncated"] = True
        else:
            observation["patch"] = change.patch
    return answer


def _summary(
    path: str,
    replacements: int,
    encoding: textcodec.Encoding,
    fuzzy: bool,
    stripped: bool,
    first_line: int | None,
) -> dict[str, Any]:
    """The answer without its diff: what was replaced, and where the text first changed."""
    details: dict[str, Any] = {
        "path": path,
        "replacements": replacements,
        "encoding": encoding.name,
        "fuzzy": fuzzy,
    }
    if stripped:
        details["line_number_prefixes_stripped"] = True
    details["observation"] = {
        "path": path,
        "replacements": replacements,
        "first_changed_line": first_line,
    }
    notes = []
    if fuzzy:
        notes.append("(matched after normalising quotes, dashes, spaces or trailing whitespace)")
    if stripped:
        notes.append("(line-number prefixes were stripped from old_string and new_string)")
    text = f"Successfully replaced {replacements} block(s) in {path}."
    if notes:
        text += " " + " ".join(notes)
    return text_result(text, **details)


#: the tools of this module, as the toolbox reads them
TOOLS = (ToolDefinition("edit", run, features=FEATURES, limits=LIMITS, ops=OPS),)
