"""The ``read`` tool: a bounded, line-numbered page of a file, or its image, PDF or notebook view.

It streams: only the lines up to the end of the requested page are decoded, each capped in length,
so page one of a 1 GiB file costs what page one of a small file costs (READ-STREAM-01,
READ-STREAM-02). Every success carries ``details.observation`` (the lines shown, exactly as
decoded, and the paging facts), which is what the conformance suite judges.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import os
import shlex
import threading
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from pytest_agenttools.implementations.reference import (
    fsport,
    image_resize,
    paths,
    read_paging,
    sniff,
    textcodec,
)
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.read_notebook import read_notebook
from pytest_agenttools.implementations.reference.read_pdf import read_pdf
from pytest_agenttools.implementations.reference.results import (
    ToolError,
    image_block,
    text_block,
    text_result,
)

FEATURES = (
    "read.image_resize",
    "read.images",
    "read.notebook",
    "read.path_variants",
    "read.pdf",
)
PARAMS = (
    Param("path", str, required=True),
    Param("offset", int),
    Param("limit", int),
    Param("pages", (str, int)),
)
ARROW = "\u2192"
#: number_line's prefix, as a bound method (mapped over a page in C)
NUMBER_FORMAT = ("{:>6}" + ARROW).format
#: the numbered prefixes of lines 0-999 and the last three digits of every other number, made
#: once: a page's numbering is then a join in C, not a format per line
_SMALL_PREFIXES = tuple(NUMBER_FORMAT(n) for n in range(1000))
_LOW_PREFIXES = tuple(f"{n:03d}{ARROW}" for n in range(1000))
LINE_CUT_SUFFIX = "... (line truncated)"  # READ-PRES-06: a cut line says so in the text


class ReadOps:
    """How read touches the file system; a variant swaps this port, not the module."""

    def resolve(self, raw: str, cwd: str, env: Mapping[str, str] | None) -> tuple[str, bool]:
        """READ-VAR-01, READ-PATH-01: the first existing spelling, and whether it is a variant."""
        return paths.resolve_for_read(raw, cwd, env)

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def similar(self, path: str) -> list[str]:
        return paths.similar_names(path)

    def refuse_device(self, path: str) -> None:
        """READ-DEV-01, READ-DEV-03: endless devices and standard streams, by any name."""
        fsport.refuse_device(path)

    def check_kind(self, path: str) -> os.stat_result:
        """READ-DIR-02, READ-SPECIAL-02: directories, FIFOs, sockets and devices refused."""
        return fsport.check_file_kind(path)

    def open(self, path: str) -> BinaryIO:
        """Open without blocking on a FIFO swapped in after the checks."""
        return os.fdopen(fsport.open_for_read(path), "rb")

    def classify(self, sample: bytes, path: str) -> sniff.Kind:
        """READ-BIN-02, READ-IMG-02: image, binary or text, from the first bytes."""
        return sniff.classify(sample, path)

    def detect(self, sample: bytes, complete: bool) -> textcodec.Encoding:
        """READ-BOM-01, READ-ENC-01, READ-ENC-02: a BOM, else UTF-8 if valid, else latin-1."""
        return textcodec.detect(sample, complete=complete)

    def lines(
        self, stream: BinaryIO, encoding: textcodec.Encoding, max_chars: int
    ) -> Iterator[tuple[str, bool]]:
        """READ-EOL-01, READ-CAP-03: lines split on LF only, each cut at ``max_chars``."""
        return textcodec.iter_lines(stream, encoding, max_chars)


OPS = ReadOps()


def _bad(message: str, argument: str) -> ToolError:
    return ToolError("invalid_argument", message, argument=argument)


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    ops: ReadOps = ctx.ops_for("read", OPS)
    args = check("read", PARAMS, arguments)  # READ-ARG-01
    raw = paths.check_raw(args["path"])  # READ-ARG-03
    offset = args.get("offset", 1)
    if offset < 0:  # READ-ARG-04: 0 reads from the start, a negative offset is an error
        raise _bad(
            f"offset must be 1 or more (line numbers start at 1), got {offset}. "
            "Use offset=1 to read from the start.",
            "offset",
        )
    offset = max(offset, 1)
    limit = args.get("limit")
    if limit is not None and limit < 1:
        raise _bad(f"limit must be 1 or more lines, got {limit}. Omit it for a full page.", "limit")
    path, via_variant = ops.resolve(raw, ctx.cwd, ctx.env)
    if not ops.exists(path):  # READ-NF-01
        hint = ops.similar(path)
        tail = f" Did you mean: {', '.join(hint)}?" if hint else " Check the path with glob."
        raise ToolError("not_found", f"File not found: {path}.{tail}", path=path)
    if os.path.islink(path) and not os.path.exists(path):  # READ-SYM-01
        raise ToolError(
            "not_found",
            f"{path} is a symbolic link to {os.readlink(path)!r}, which does not exist.",
            path=path,
        )
    ops.refuse_device(path)
    ops.check_kind(path)
    with ops.open(path) as stream:
        sample = stream.read(sniff.SAMPLE_BYTES)
        pages = args.get("pages")
        if path.lower().endswith(".pdf") or sample.startswith(b"%PDF-"):
            return read_pdf(path, pages, ctx.limits)
        if pages is not None:  # READ-PDF-06: never ignored
            raise _bad(
                f"pages applies to PDF files only; {path} is not a PDF. Use offset and limit.",
                "pages",
            )
        if path.lower().endswith(".ipynb"):
            return read_notebook(path, ctx.limits)
        kind = ops.classify(sample, path)
        if kind.kind == "image":
            return _image(stream, sample, path, kind.mime_type, ctx.limits)
        if kind.kind == "video":  # READ-VID-01: read.video is not declared, and says so
            raise ToolError(
                "unsupported_type",
                f"{path} is a video ({kind.mime_type}); this read tool does not show videos. "
                "Extract frames with bash "
                f"(`ffmpeg -i {shlex.quote(path)} -vf fps=1 frame_%03d.png`) "
                "and read those images.",
                path=path,
            )
        if kind.kind == "binary":  # READ-BIN-02
            raise ToolError(
                "binary_file",
                f"{path} looks like a binary file ({kind.reason}), so it is not shown as text. "
                f"Inspect it with bash: `file {shlex.quote(path)}` or "
                f"`hexdump -C {shlex.quote(path)} | head`.",
                path=path,
            )
        stream.seek(0)
        encoding = ops.detect(sample, len(sample) < sniff.SAMPLE_BYTES)
        page = Page(path, offset, limit, ctx.limits, ctx.cancel)
        result = _page(ops, stream, encoding, page, ctx)
    if via_variant:
        result["details"]["resolved_path"] = path
        block = result["content"][0]
        block["text"] += f"\n\n[Read {path}: the path as given did not exist; this spelling does.]"
    return result


def _walks_lines_as_reference(ops: Any) -> bool:
    """The port's ``lines`` is the reference's own, looking through ports that only delegate
    (confinement's wrapper keeps the port it was given as ``base``)."""
    while not hasattr(type(ops), "lines") and hasattr(ops, "base"):
        ops = ops.base
    return getattr(type(ops), "lines", None) is ReadOps.lines


def _page(
    ops: ReadOps,
    stream: BinaryIO,
    encoding: textcodec.Encoding,
    page: Page,
    ctx: CallContext,
) -> dict[str, Any]:
    """READ-PAGE-01 at the cost of the page's bytes: skip to ``offset`` by counting newlines in
    raw chunks from the nearest line start known for this unchanged file (``read_paging``),
    then render the page from there. A port whose ``lines`` is its own walks from line 1."""
    max_chars = ctx.limits["read.max_line_chars"]
    own_lines = _walks_lines_as_reference(ops)
    marks = read_paging.checkpoints(ctx.services) if own_lines else None
    found = (
        read_paging.skip_to(stream, encoding, page.offset, ctx.cancel, marks, page.path)
        if own_lines
        else None
    )
    if found is None:
        stream.seek(0)
        return page.render(ops.lines(stream, encoding, max_chars), encoding)
    position, before = found
    stream.seek(position)
    if encoding.codec == "utf-8" and before == page.offset - 1:
        quick = page.render_block(stream, encoding, position, marks)
        if quick is not None:
            return quick
        stream.seek(position)
    # past the start, a U+FEFF opening a line is text, not the file's BOM
    walk = encoding if position == 0 else dataclasses.replace(encoding, bom=b"")
    return page.render(ops.lines(stream, walk, max_chars), encoding, before)


def _image(stream: BinaryIO, sample: bytes, path: str, mime: str, limits: Limits) -> dict[str, Any]:
    """READ-IMG-03: the exact bytes as an image block, up to ``read.max_image_bytes``;
    READ-IMG-04: an image larger than ``read.image_max_dimension`` scaled down to fit, and the
    result says so (the observation, and a note in the text)."""
    cap = limits["read.max_image_bytes"]
    data = sample + stream.read(cap + 1 - len(sample))
    if len(data) > cap:
        raise ToolError(
            "too_large",
            f"{path} is an image larger than {cap} bytes; it is not sent. Shrink it first "
            "(for example with ImageMagick `convert -resize`).",
            path=path,
        )
    converted = ""
    if mime == "image/bmp":  # READ-IMG-05: sent as PNG, and the text says so
        try:
            data = image_resize.bmp_to_png(data)
        except ValueError as exc:
            raise ToolError(
                "bad_image", f"{path} is a BMP image, but {exc}; it is not sent.", path=path
            ) from None
        mime = "image/png"
        converted = "\n[The file is a BMP image; it was converted to PNG to be sent.]"
    dimension = limits["read.image_max_dimension"]
    try:
        resized = image_resize.resize(data, mime, dimension)
    except ValueError as exc:
        raise ToolError("bad_image", f"{path} is too large to send and {exc}.", path=path) from None
    observation: dict[str, Any] = {"kind": "image", "mime_type": mime}
    if converted:
        observation["converted_from"] = "image/bmp"
    header = f"Read image file {path} [{mime}, {len(data)} bytes]{converted}"
    if resized is not None:
        data = resized.data
        observation.update(
            resized=True,
            width=resized.width,
            height=resized.height,
            original_width=resized.original_width,
            original_height=resized.original_height,
        )
        header += (
            f"\n[The image was resized from {resized.original_width}x{resized.original_height} "
            f"to {resized.width}x{resized.height} pixels to fit {dimension}x{dimension}: "
            "positions and sizes in it are scaled by "
            f"{resized.width / resized.original_width:.4g}.]"
        )
    return {
        "content": [text_block(header), image_block(data, mime)],
        "isError": False,
        "details": {
            "path": path,
            "mimeType": mime,
            "bytes": len(data),
            "observation": observation,
        },
    }


def number_line(number: int, text: str) -> str:
    """READ-LN-01: the number right-aligned to width 6, then the arrow, then the line."""
    return f"{number:>6}{ARROW}{text}"


def number_lines(start: int, lines: list[str]) -> str:
    """``number_line`` of each line from ``start`` on, joined with LF: the per-line cost of
    every page, so it is one ``join`` in C over three interleaved columns, with no string
    built per line. Numbers sharing all but their last three digits share one head (``"  12"``
    for 12,000-12,999, after the LF that ends the line before); the rest of each prefix comes
    from a table."""
    count_all = len(lines)
    if not count_all:
        return ""
    parts = [""] * (3 * count_all)
    at, number, end = 0, start, start + count_all
    while number < end:
        high, low = divmod(number, 1000)
        count = min(end, (high + 1) * 1000) - number
        head, table = ("\n" + f"{high:>3}", _LOW_PREFIXES) if high else ("\n", _SMALL_PREFIXES)
        first, stop = 3 * at, 3 * (at + count)
        parts[first:stop:3] = [head] * count
        parts[first + 1 : stop : 3] = table[low : low + count]
        parts[first + 2 : stop : 3] = lines[at : at + count]
        at += count
        number += count
    parts[0] = parts[0][1:]  # no LF before the first line
    return "".join(parts)


class Page:
    """One page of a text file: which lines to show and what stopped it.

    READ-CAP-01, READ-CAP-02, READ-CAP-03: at most ``read.max_lines`` lines (or ``limit``,
    READ-PAGE-02), at most ``read.max_bytes`` of text (counted in the unit the manifest
    declares: UTF-8 bytes, or characters), always at least one line, each counted with its
    LF; the next page starts exactly after this one (READ-PAGE-01). Lines are shown exactly
    as decoded (READ-TEXT-01).
    """

    def __init__(
        self,
        path: str,
        offset: int,
        limit: int | None,
        limits: Limits,
        cancel: threading.Event,
    ) -> None:
        self.path = path
        self.offset = offset
        self.limit = limit
        self.max_lines = limits["read.max_lines"]
        self.page_size = min(limit, self.max_lines) if limit else self.max_lines
        self.max_bytes = limits["read.max_bytes"]
        self.in_chars = limits.unit("read.max_bytes") == "chars"
        self.max_chars = limits["read.max_line_chars"]
        self.cancel = cancel

    def cost(self, line: str) -> int:
        if self.in_chars:
            return len(line) + 1
        return len(line.encode("utf-8", "surrogatepass")) + 1

    def render(
        self, lines: Iterator[tuple[str, bool]], encoding: textcodec.Encoding, before: int = 0
    ) -> dict[str, Any]:
        """The page from ``lines``, the file's lines after the first ``before`` of them."""
        shown: list[str] = []
        cut_lines: list[int] = []
        used = 0
        seen = before
        stopped_by: str | None = None
        for line, cut in lines:
            if self.cancel.is_set():  # a huge offset walks the file: honour cancellation
                raise ToolError("aborted", f"Reading {self.path} was cancelled.", path=self.path)
            seen += 1
            if seen < self.offset:
                continue
            if len(shown) >= self.page_size:
                stopped_by = "limit" if self.limit and self.limit <= self.max_lines else "lines"
                break
            cost = self.cost(line)
            if shown and used + cost > self.max_bytes:
                stopped_by = "bytes"
                break
            used += cost
            shown.append(line)
            if cut:
                cut_lines.append(seen)
        return self.finish(shown, cut_lines, seen, stopped_by, encoding)

    def render_block(
        self,
        stream: BinaryIO,
        encoding: textcodec.Encoding,
        position: int,
        marks: read_paging.Checkpoints | None,
    ) -> dict[str, Any] | None:
        """The page of a UTF-8 file whose line ``offset`` starts at ``position``, from one block
        of raw bytes split in C; None (walk the lines instead) when a line in it is longer than
        ``read.max_line_chars``, the bytes are not valid UTF-8, or the first line passes the
        block. Same page, same facts as ``render``."""
        limit = self.max_bytes + 1 if not self.in_chars else 4 * self.max_bytes + 4
        block = stream.read(limit)
        at_end = len(block) < limit
        last_lf = block.rfind(b"\n")
        unterminated = at_end and bool(block) and last_lf != len(block) - 1
        if unterminated:  # the file's last line has no LF: it is a whole line here
            whole, tail = len(block), b""
        elif last_lf < 0:
            return None
        else:  # after the last LF: a part line (or nothing)
            whole, tail = last_lf, block[last_lf + 1 :]
        try:  # one decode of the whole lines, split in C
            text = block[:whole].decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = text.split("\n")
        if len(text) > self.max_chars and max(map(len, lines)) > self.max_chars:
            return None
        count = len(lines)
        if self.in_chars:  # the cost of the first k lines, each with its LF: accumulate, bisect
            costs = itertools.accumulate(map((1).__add__, map(len, lines)))
            by_bytes = bisect.bisect_right(list(costs), self.max_bytes)
            used = len(text) + 1
        else:  # in bytes, the first k lines fit when the k-th LF is before max_bytes
            # the LFs before max_bytes, known from the split: the block holds count - 1 LFs
            # (unterminated) or count (the last at ``whole``, which is max_bytes at most)
            if unterminated:
                by_bytes = count - 1 + (1 if whole + 1 <= self.max_bytes else 0)
            else:
                by_bytes = count - (1 if whole >= self.max_bytes else 0)
            used = whole + 1
        by_bytes = max(by_bytes, 1)
        stop = min(self.page_size, by_bytes)
        stopped_by: str | None = None
        if stop < count:  # a line follows the page: what stopped it, as render checks it
            shown_count = stop
            if self.page_size <= by_bytes:
                stopped_by = "limit" if self.limit and self.limit <= self.max_lines else "lines"
            else:
                stopped_by = "bytes"
        else:  # every whole line of the block fits: the page ends at the block's end?
            shown_count = count
            if at_end:
                pass
            elif not tail:  # the block ended on an LF: whether a line follows is unknown
                return None
            elif shown_count >= self.page_size:
                stopped_by = "limit" if self.limit and self.limit <= self.max_lines else "lines"
            else:  # the part line after the block's last LF: too long to fit, whatever its rest
                least = len(tail.decode("utf-8", "ignore")) if self.in_chars else len(tail)
                if used + least + 1 <= self.max_bytes:
                    return None
                stopped_by = "bytes"
        shown = lines[:shown_count]
        if stopped_by is not None and marks is not None:
            key = read_paging.file_key(stream)
            if key is not None:  # where the next page starts: after the LF of its last line
                joined = "\n".join(shown)
                size = len(joined) if joined.isascii() else len(joined.encode("utf-8"))
                marks.remember(key, self.offset - 1 + shown_count, position + size + 1)
        seen = self.offset - 1 + shown_count
        return self.finish(shown, [], seen, stopped_by, encoding)

    def finish(
        self,
        shown: list[str],
        cut_lines: list[int],
        seen: int,
        stopped_by: str | None,
        encoding: textcodec.Encoding,
    ) -> dict[str, Any]:
        details: dict[str, Any] = {
            "path": self.path,
            "encoding": encoding.name,
            "bom": encoding.has_bom,
            "offset_unit": "line",
        }
        observation: dict[str, Any] = {
            "kind": "text",
            "start_line": self.offset,
            "lines": shown,
            "cut_lines": cut_lines,
            "truncated": stopped_by is not None,
            "encoding": encoding.name,
            "bom": encoding.has_bom,
        }
        details["observation"] = observation
        if seen == 0:  # READ-EMPTY-02, READ-DEV-02, READ-PRES-03 (a note, never blank)
            observation.update(start_line=1, total_lines=0)
            details.update(empty=True, has_more=False, total_lines=0)
            return text_result(
                f"[{self.path} exists but is empty (0 lines). Nothing to show; write to it or "
                "check the path.]",
                **details,
            )
        if not shown:  # READ-OFF-01
            raise ToolError(
                "offset_beyond_end",
                f"Offset {self.offset} is beyond end of file ({seen} lines total). "
                f"Use an offset from 1 to {seen}.",
                total_lines=seen,
                path=self.path,
            )
        return text_result(self._text(shown, cut_lines, encoding, stopped_by, details), **details)

    def _text(
        self,
        shown: list[str],
        cut_lines: list[int],
        encoding: textcodec.Encoding,
        stopped_by: str | None,
        details: dict[str, Any],
    ) -> str:
        """READ-TRUNC-01: the paging facts; READ-PRES-01: every line in the text, in order;
        READ-PRES-02: the cut announced with its offset; READ-GOLD-01: the exact layout."""
        observation = details["observation"]
        start, end = self.offset, self.offset + len(shown) - 1
        if cut_lines:
            was_cut = set(cut_lines)
            text = "\n".join(
                number_line(n, line + (LINE_CUT_SUFFIX if n in was_cut else ""))
                for n, line in enumerate(shown, start=start)
            )
        else:
            text = number_lines(start, shown)
        notes: list[str] = []
        if encoding.name == "latin-1":
            notes.append("[Decoded as latin-1: the file is not valid UTF-8.]")
        if cut_lines:
            listed = ", ".join(map(str, cut_lines[:20])) + (" ..." if len(cut_lines) > 20 else "")
            notes.append(
                f"[Line(s) {listed} longer than {self.max_chars} characters were cut. "
                f"To see the rest of line N: bash `sed -n 'Np' {self.path} | "
                f"cut -c {self.max_chars + 1}-`]"
            )
            details["line_truncations"] = cut_lines
        details.update(start_line=start, end_line=end, has_more=stopped_by is not None)
        if stopped_by:
            next_offset = end + 1
            if stopped_by == "bytes":
                unit = "K chars" if self.in_chars else "KB"
                reason = f" ({self.max_bytes / 1024:.1f}{unit} limit)"
            else:
                reason = ""
            notes.append(
                f"[Showing lines {start}-{end}{reason}. Use offset={next_offset} to continue.]"
            )
            details.update(next_offset=next_offset, truncated_by=stopped_by)
            observation.update(next_offset=next_offset, truncated_by=stopped_by)
        else:
            details["total_lines"] = end
            observation["total_lines"] = end
        if notes:
            text += "\n\n" + "\n".join(notes)
        return text


#: the tools of this module, as the toolbox reads them
TOOLS = (ToolDefinition("read", run, features=FEATURES, ops=OPS),)
