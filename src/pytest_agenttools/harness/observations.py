"""Canonical observations: what a tool did, as data the kit can judge without reading prose.

Every ``agenttools/2`` result carries, in ``details.observation``, a structured account of the
call (the lines a read showed, the matches a grep found, the exit code of a command ...). The
kit judges behaviour on these, on the bytes on disk and on the process table, never on the text
layout of one implementation; the model-facing text is cross-checked against the observation
(every reported line, match or path appears in it in some form), so an adapter cannot satisfy
the kit with details alone. The implementation or its adapter builds the observation; building
it from a tool's own output is mapping, not fixing.

The shapes are documented in ``docs/adapter-protocol.md`` ("Observations"). Unknown keys are
ignored (implementations may add their own); a known key with the wrong type is a contract
violation that names the key and the call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pytest_agenttools.harness.tracebacks import kit_frame
from pytest_agenttools.harness.violation import ContractViolation

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

T = TypeVar("T")

#: Tools whose error results carry an observation too (they describe a command that ran).
ALWAYS_OBSERVED = frozenset({"bash", "task_output"})

READ_KINDS = ("text", "image", "pdf", "notebook")
GREP_MODES = ("files_with_matches", "content", "count")


class _Fields:
    """Typed access to one observation object; every message names the key and the tool."""

    def __init__(self, raw: Mapping[str, Any], where: str) -> None:
        self.raw = raw
        self.where = where

    def _bad(self, key: str, wanted: str) -> ContractViolation:
        return ContractViolation(
            f"{self.where}.{key} must be {wanted}, got {self.raw.get(key)!r:.80} "
            "(docs/adapter-protocol.md, Observations)"
        )

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def integer(self, key: str, *, required: bool = False, minimum: int | None = None) -> int:
        value = self.raw.get(key)
        if value is None and not required:
            return minimum if minimum is not None else 0
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._bad(key, "an integer")
        if minimum is not None and value < minimum:
            raise self._bad(key, f"an integer >= {minimum}")
        return value

    def opt_integer(self, key: str, *, minimum: int | None = None) -> int | None:
        if self.raw.get(key) is None:
            return None
        return self.integer(key, required=True, minimum=minimum)

    def number(self, key: str) -> float | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self._bad(key, "a number")
        return float(value)

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.raw.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def string(self, key: str, *, required: bool = False) -> str:
        value = self.raw.get(key)
        if value is None and not required:
            return ""
        if not isinstance(value, str):
            raise self._bad(key, "a string")
        return value

    def opt_string(self, key: str) -> str | None:
        if self.raw.get(key) is None:
            return None
        return self.string(key, required=True)

    def choice(self, key: str, choices: Sequence[str], *, default: str | None = None) -> str:
        value = self.raw.get(key, default)
        if value not in choices:
            raise self._bad(key, "one of " + ", ".join(repr(c) for c in choices))
        return str(value)

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "a list of strings")
        return tuple(value)

    def integers(self, key: str) -> tuple[int, ...]:
        value = self.raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise self._bad(key, "a list of integers")
        return tuple(value)

    def objects(self, key: str) -> list[_Fields]:
        value = self.raw.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise self._bad(key, "a list of objects")
        return [_Fields(v, f"{self.where}.{key}[{i}]") for i, v in enumerate(value)]


# --- read -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadCell:
    """One notebook cell as shown: its type, its source, and its text outputs.

    ``outputs`` holds each text output as shown; an output replaced by a note because it was
    too long is not in ``outputs`` but counted in ``omitted_outputs``; ``images`` counts the
    image outputs sent as image blocks.
    """

    cell_type: str
    source: str
    outputs: tuple[str, ...]
    omitted_outputs: int
    images: int


@dataclass(frozen=True)
class ReadObservation:
    """A page of a file.

    ``kind`` is ``text`` (``lines`` from ``start_line``), ``image``, ``pdf`` or ``notebook``.
    For text: ``lines`` are the shown lines exactly as decoded, without their LF (a CR stays,
    a BOM does not); a line cut at the per-line cap holds the part shown and its number is in
    ``cut_lines``. ``truncated`` says that lines after the page exist and were not shown;
    ``truncated_by`` says what stopped the page (``lines``: read.max_lines, ``bytes``:
    read.max_bytes, ``limit``: the call's limit); ``next_offset`` is the canonical (1-based)
    line to continue from, exactly ``end_line + 1``, and absent when nothing follows;
    ``total_lines`` is the file's line count, given whenever the page reached the end of the
    file. ``encoding`` (e.g. ``utf-8``, ``utf-16le-bom``) and ``bom`` say how it was decoded.
    For image: ``mime_type``; ``resized`` says the image sent was scaled down from the file
    (``read.image_resize``), ``width`` and ``height`` are the size sent and
    ``original_width`` and ``original_height`` the file's own (given when resized);
    ``converted_from`` the file's own type when the image sent is of another. For pdf:
    ``pages`` are the page numbers shown and
    ``page_texts`` the extracted text of each, in the same order; ``total_pages`` the page
    count; ``truncated`` says pages of the asked range were not shown (the text budget ran
    out) and ``next_offset`` is then the page to continue from. For notebook: ``cells`` in
    order, ``total_cells``; ``truncated`` says cells after them were not shown.
    """

    kind: str
    start_line: int
    lines: tuple[str, ...]
    cut_lines: tuple[int, ...]
    total_lines: int | None
    truncated: bool
    truncated_by: str | None
    next_offset: int | None
    encoding: str | None
    bom: bool | None
    mime_type: str | None
    pages: tuple[int, ...]
    total_pages: int | None
    raw: Mapping[str, Any]
    page_texts: tuple[str, ...] = ()
    cells: tuple[ReadCell, ...] = ()
    total_cells: int | None = None
    resized: bool = False
    width: int | None = None
    height: int | None = None
    original_width: int | None = None
    original_height: int | None = None
    converted_from: str | None = None

    @property
    def end_line(self) -> int:
        """The number of the last shown line (``start_line - 1`` for an empty page)."""
        return self.start_line + len(self.lines) - 1

    @property
    def numbered(self) -> list[tuple[int, str]]:
        return list(enumerate(self.lines, start=self.start_line))

    @classmethod
    def parse(cls, f: _Fields) -> ReadObservation:
        kind = f.choice("kind", READ_KINDS, default="text")
        bom = f.boolean("bom") if f.has("bom") else None
        cells = tuple(
            ReadCell(
                cell_type=c.string("cell_type", required=True),
                source=c.string("source"),
                outputs=c.strings("outputs"),
                omitted_outputs=c.integer("omitted_outputs", minimum=0),
                images=c.integer("images", minimum=0),
            )
            for c in f.objects("cells")
        )
        return cls(
            kind=kind,
            start_line=f.integer("start_line", minimum=1) if f.has("start_line") else 1,
            lines=f.strings("lines"),
            cut_lines=f.integers("cut_lines"),
            total_lines=f.opt_integer("total_lines", minimum=0),
            truncated=f.boolean("truncated"),
            truncated_by=f.opt_string("truncated_by"),
            next_offset=f.opt_integer("next_offset", minimum=1),
            encoding=f.opt_string("encoding"),
            bom=bom,
            mime_type=f.opt_string("mime_type"),
            pages=f.integers("pages"),
            total_pages=f.opt_integer("total_pages", minimum=0),
            raw=f.raw,
            page_texts=f.strings("page_texts"),
            cells=cells,
            total_cells=f.opt_integer("total_cells", minimum=0),
            resized=f.boolean("resized"),
            width=f.opt_integer("width", minimum=1),
            height=f.opt_integer("height", minimum=1),
            original_width=f.opt_integer("original_width", minimum=1),
            original_height=f.opt_integer("original_height", minimum=1),
            converted_from=f.opt_string("converted_from"),
        )


# --- write and edit -------------------------------------------------------------------------


@dataclass(frozen=True)
class WriteObservation:
    """A write that happened.

    ``path`` is the file written (absolute, or relative to the call's ``cwd``).
    ``bytes_written`` is the size of the file on disk after the write, in bytes (BOM included,
    in the file's encoding): required. ``created`` is true when the write made the file (it
    did not exist before), false when it replaced one, and None (or absent) when the
    implementation cannot tell. ``first_changed_line`` is the first line of the new text that
    differs from the old (1-based), None when unknown or unchanged.
    """

    path: str
    bytes_written: int
    created: bool | None
    first_changed_line: int | None
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, f: _Fields) -> WriteObservation:
        return cls(
            path=f.string("path", required=True),
            bytes_written=f.integer("bytes_written", required=True, minimum=0),
            created=f.boolean("created") if f.has("created") else None,
            first_changed_line=f.opt_integer("first_changed_line", minimum=1),
            raw=f.raw,
        )


@dataclass(frozen=True)
class EditObservation:
    """A successful edit.

    ``path`` is the edited file (absolute or relative to the call's ``cwd``; through a symbolic
    link, the link or its target). ``replacements`` counts the replaced spans over all edits of
    the call (a ``replace_all`` edit counts each occurrence). ``first_changed_line`` is the
    1-based number of the first line of the new file that differs from the old one (lines split
    on LF), when the implementation gives it. ``patch`` is a unified diff of the change that
    ``patch -p0`` applies in ``cwd``; given by implementations that declare ``edit.patch``
    (None when the patch was left out, e.g. for a huge file).
    """

    path: str
    replacements: int
    first_changed_line: int | None
    patch: str | None
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, f: _Fields) -> EditObservation:
        return cls(
            path=f.string("path", required=True),
            replacements=f.integer("replacements", required=True, minimum=0),
            first_changed_line=f.opt_integer("first_changed_line", minimum=1),
            patch=f.opt_string("patch"),
            raw=f.raw,
        )


# --- grep and glob --------------------------------------------------------------------------


@dataclass(frozen=True)
class GrepLine:
    """One line of content-mode output: a match, or a context line around one."""

    path: str
    line: int
    text: str
    match: bool
    cut: bool


@dataclass(frozen=True)
class GrepCount:
    path: str
    count: int


@dataclass(frozen=True)
class GrepObservation:
    """The results as data, in the order shown.

    ``files`` (files_with_matches mode), ``lines`` (content mode) and ``counts`` (count mode).
    Every path is absolute, or relative to the call's ``cwd`` (never to the search root),
    normalised, with ``/`` separators; each undecodable byte of a file name is U+FFFD (the kit
    compares them with ``assertions.resolve`` / ``relative_paths``). A line's ``text`` is the
    line without its LF (a CR stays); when ``cut`` it holds the part shown (no marker). Context
    lines have ``match`` false and are not results. ``truncated`` says results exist that this
    page does not show (a later page, or results an output cap cut off; then ``next_offset``
    may be None); ``next_offset`` is the canonical offset (results to skip) of the next page;
    ``total`` is the number of results when known (a lower bound after an output cap).
    """

    mode: str
    files: tuple[str, ...]
    lines: tuple[GrepLine, ...]
    counts: tuple[GrepCount, ...]
    truncated: bool
    next_offset: int | None
    total: int | None
    raw: Mapping[str, Any]

    @property
    def paths(self) -> list[str]:
        """Every path the result names, in order, each once."""
        found = [*self.files, *(x.path for x in self.lines), *(c.path for c in self.counts)]
        return list(dict.fromkeys(found))

    @property
    def matches(self) -> list[GrepLine]:
        return [x for x in self.lines if x.match]

    @classmethod
    def parse(cls, f: _Fields) -> GrepObservation:
        lines = tuple(
            GrepLine(
                path=x.string("path", required=True),
                line=x.integer("line", required=True, minimum=1),
                text=x.string("text", required=True),
                match=x.boolean("match", default=True),
                cut=x.boolean("cut"),
            )
            for x in f.objects("lines")
        )
        counts = tuple(
            GrepCount(
                path=x.string("path", required=True),
                count=x.integer("count", required=True, minimum=0),
            )
            for x in f.objects("counts")
        )
        return cls(
            mode=f.choice("mode", GREP_MODES),
            files=f.strings("files"),
            lines=lines,
            counts=counts,
            truncated=f.boolean("truncated"),
            next_offset=f.opt_integer("next_offset", minimum=0),
            total=f.opt_integer("total", minimum=0),
            raw=f.raw,
        )


@dataclass(frozen=True)
class GlobObservation:
    """``paths`` in the order shown, as grep's (absolute or relative to the call's ``cwd``);
    ``truncated``, ``next_offset`` and ``total`` as for grep."""

    paths: tuple[str, ...]
    truncated: bool
    next_offset: int | None
    total: int | None
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, f: _Fields) -> GlobObservation:
        return cls(
            paths=f.strings("paths"),
            truncated=f.boolean("truncated"),
            next_offset=f.opt_integer("next_offset", minimum=0),
            total=f.opt_integer("total", minimum=0),
            raw=f.raw,
        )


# --- bash and task_output -------------------------------------------------------------------


@dataclass(frozen=True)
class BashObservation:
    """A command run (or a background task polled with ``task_output``).

    ``output`` is the command's combined stdout and stderr as shown to the model (after the
    implementation's cut; a cut view may hold a marker of the implementation's own where text
    was left out; an empty output is ``""``, whatever the text says instead). When
    ``truncated``, ``output_head`` and ``output_tail`` are the parts of the output the view
    kept, exactly as shown and without any marker or notice: ``output_head`` a start of the
    output (``""`` when only the end is shown), ``output_tail`` its end; the caps are judged on
    them, in the limit's declared unit. ``full_output_path`` names a file with the whole output
    (given at least when the view is cut); ``full_output_truncated`` says that file itself was
    cut to ``bash.output_file_max_bytes`` (it then keeps a head and a tail).

    ``exit_code`` is None while running or when killed by a signal (then ``signal`` names it,
    e.g. ``SIGKILL``); ``timed_out`` and ``aborted`` say why the command was ended.
    ``timeout_s`` is the timeout the implementation applied to the command, in seconds (None:
    none, which no conforming command has). ``background`` with a ``task_id`` says the command
    runs on as a task (asked for, or moved there after a soft-yield window); ``running`` is
    true while it has not ended. ``env_removed`` lists the variable names removed from the
    command's environment (reported at least once per command or task: in its result, or in
    the start result of a task; None where not reported). ``trash_dir`` is where the
    recoverable ``rm`` puts what it removes (feature ``bash.recoverable_delete``).

    Optional (None where not reported; judged when reported, BASH-OUT-09): ``truncated_by``,
    the cap that cut the view (``bytes`` or ``lines``); ``total_bytes`` and ``total_lines``, the
    whole output the result shows a view of, before the cut; ``output_lines``, the lines shown;
    ``last_line_partial``, the kept tail begins inside a line.

    A refused call (bad arguments) is an error result whose observation has ``running``
    false and no exit code: nothing ran.
    """

    exit_code: int | None
    signal: str | None
    timed_out: bool
    aborted: bool
    output: str
    truncated: bool
    output_head: str
    output_tail: str | None
    full_output_path: str | None
    full_output_truncated: bool
    timeout_s: float | None
    background: bool
    running: bool
    task_id: str | None
    env_removed: tuple[str, ...] | None
    trash_dir: str | None
    truncated_by: str | None
    total_bytes: int | None
    total_lines: int | None
    output_lines: int | None
    last_line_partial: bool | None
    raw: Mapping[str, Any]

    @property
    def finished(self) -> bool:
        return not self.running and not (self.background and self.exit_code is None)

    @property
    def ended(self) -> bool:
        """The command ran and is over: an exit code, a signal, a timeout or an abort."""
        return not self.running and (
            self.exit_code is not None or self.signal is not None or self.timed_out or self.aborted
        )

    @classmethod
    def parse(cls, f: _Fields) -> BashObservation:
        removed = f.strings("env_removed") if f.has("env_removed") else None
        return cls(
            exit_code=f.opt_integer("exit_code"),
            signal=f.opt_string("signal"),
            timed_out=f.boolean("timed_out"),
            aborted=f.boolean("aborted"),
            output=f.string("output"),
            truncated=f.boolean("truncated"),
            output_head=f.string("output_head"),
            output_tail=f.opt_string("output_tail"),
            full_output_path=f.opt_string("full_output_path"),
            full_output_truncated=f.boolean("full_output_truncated"),
            timeout_s=f.number("timeout_s"),
            background=f.boolean("background"),
            running=f.boolean("running"),
            task_id=f.opt_string("task_id"),
            env_removed=removed,
            trash_dir=f.opt_string("trash_dir"),
            truncated_by=f.opt_string("truncated_by"),
            total_bytes=f.opt_integer("total_bytes", minimum=0),
            total_lines=f.opt_integer("total_lines", minimum=0),
            output_lines=f.opt_integer("output_lines", minimum=0),
            last_line_partial=(
                f.boolean("last_line_partial") if f.has("last_line_partial") else None
            ),
            raw=f.raw,
        )


Observation = (
    ReadObservation
    | WriteObservation
    | EditObservation
    | GrepObservation
    | GlobObservation
    | BashObservation
)

PARSERS: Mapping[str, Any] = {
    "read": ReadObservation.parse,
    "write": WriteObservation.parse,
    "edit": EditObservation.parse,
    "grep": GrepObservation.parse,
    "glob": GlobObservation.parse,
    "bash": BashObservation.parse,
    "task_output": BashObservation.parse,
}


def parse_observation(tool: str, raw: Any, *, where: str = "details.observation") -> Observation:
    """Validate ``details.observation`` of a ``tool`` result; ContractViolation says what is off."""
    parser = PARSERS.get(tool)
    if parser is None:
        raise ContractViolation(f"no observation shape is defined for tool {tool!r}")
    if not isinstance(raw, Mapping):
        raise ContractViolation(
            f"{where} of a {tool} result must be an object, got {type(raw).__name__}"
        )
    parsed: Observation = parser(_Fields(raw, where))
    return parsed
