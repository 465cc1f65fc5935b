"""The ``read`` tool: a bounded, line-numbered page of a file, or its image, PDF or notebook view.

It streams: only the lines up to the end of the requested page are decoded, each capped in length,
so page one of a 1 GiB file costs what page one of a small file costs.
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from . import fsport, paths, sniff, textcodec
from .arguments import Param, check
from .context import CallContext
from .limits import Limits
from .read_notebook import read_notebook
from .read_pdf import read_pdf
from .results import ToolError, image_block, text_block, text_result

FEATURES = (
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
LINE_CUT_SUFFIX = "... (line truncated)"


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("read", PARAMS, arguments)
    raw = paths.check_raw(args["path"])
    offset = args.get("offset", 1)
    if offset < 0:
        raise ToolError(
            "invalid_argument",
            f"offset must be 1 or more (line numbers start at 1), got {offset}. "
            "Use offset=1 to read from the start.",
        )
    offset = max(offset, 1)
    limit = args.get("limit")
    if limit is not None and limit < 1:
        raise ToolError(
            "invalid_argument",
            f"limit must be 1 or more lines, got {limit}. Omit it for a full page.",
        )
    path, via_variant = paths.resolve_for_read(raw, ctx.cwd, ctx.env)
    if not os.path.lexists(path):
        hint = paths.similar_names(path)
        tail = f" Did you mean: {', '.join(hint)}?" if hint else " Check the path with glob."
        raise ToolError("not_found", f"File not found: {path}.{tail}")
    if os.path.islink(path) and not os.path.exists(path):
        raise ToolError(
            "not_found",
            f"{path} is a symbolic link to {os.readlink(path)!r}, which does not exist.",
        )
    fsport.guard_readable(path)
    fd = fsport.open_for_read(path)
    with os.fdopen(fd, "rb") as stream:
        sample = stream.read(sniff.SAMPLE_BYTES)
        pages = args.get("pages")
        if path.lower().endswith(".pdf") or sample.startswith(b"%PDF-"):
            return read_pdf(path, pages, ctx.limits)
        if pages is not None:
            raise ToolError(
                "invalid_argument",
                f"pages applies to PDF files only; {path} is not a PDF. Use offset and limit.",
            )
        if path.lower().endswith(".ipynb"):
            return read_notebook(path, ctx.limits)
        kind = sniff.classify(sample, path)
        if kind.kind == "image":
            return _image(stream, sample, path, kind.mime_type, ctx.limits)
        if kind.kind == "binary":
            raise ToolError(
                "binary_file",
                f"{path} looks like a binary file ({kind.reason}), so it is not shown as text. "
                f"Inspect it with bash: `file {path}` or `hexdump -C {path} | head`.",
            )
        stream.seek(0)
        result = _text_page(stream, sample, path, offset, limit, ctx.limits)
    if via_variant:
        result["details"]["resolved_path"] = path
        block = result["content"][0]
        block["text"] += f"\n\n[Read {path}: the path as given did not exist; this spelling does.]"
    return result


def _image(stream: BinaryIO, sample: bytes, path: str, mime: str, limits: Limits) -> dict[str, Any]:
    cap = limits["read.max_image_bytes"]
    data = sample + stream.read(cap + 1 - len(sample))
    if len(data) > cap:
        raise ToolError(
            "too_large",
            f"{path} is an image larger than {cap} bytes; it is not sent. Shrink it first "
            "(for example with ImageMagick `convert -resize`).",
        )
    return {
        "content": [
            text_block(f"Read image file {path} [{mime}, {len(data)} bytes]"),
            image_block(data, mime),
        ],
        "isError": False,
        "details": {"path": path, "mimeType": mime, "bytes": len(data)},
    }


def number_line(number: int, text: str) -> str:
    return f"{number:>6}{ARROW}{text}"


def _text_page(
    stream: BinaryIO, sample: bytes, path: str, offset: int, limit: int | None, limits: Limits
) -> dict[str, Any]:
    encoding = textcodec.detect(sample, complete=len(sample) < sniff.SAMPLE_BYTES)
    max_lines = limits["read.max_lines"]
    page_size = min(limit, max_lines) if limit else max_lines
    max_bytes = limits["read.max_bytes"]
    max_chars = limits["read.max_line_chars"]
    shown: list[str] = []
    cut_lines: list[int] = []
    used = 0
    seen = 0
    stopped_by: str | None = None
    for line, cut in textcodec.iter_lines(stream, encoding, max_chars):
        seen += 1
        if seen < offset:
            continue
        if len(shown) >= page_size:
            stopped_by = "limit" if limit and limit <= max_lines else "lines"
            break
        cost = len(line.encode("utf-8", "surrogatepass")) + 1
        if shown and used + cost > max_bytes:
            stopped_by = "bytes"
            break
        used += cost
        shown.append(number_line(seen, line + (LINE_CUT_SUFFIX if cut else "")))
        if cut:
            cut_lines.append(seen)
    details: dict[str, Any] = {
        "path": path,
        "encoding": encoding.name,
        "bom": encoding.has_bom,
        "offset_unit": "line",
    }
    if seen == 0:
        details.update(empty=True, has_more=False, total_lines=0)
        return text_result(
            f"[{path} exists but is empty (0 lines). Nothing to show; write to it or check "
            "the path.]",
            **details,
        )
    if not shown:
        raise ToolError(
            "offset_beyond_end",
            f"Offset {offset} is beyond end of file ({seen} lines total). "
            f"Use an offset from 1 to {seen}.",
            total_lines=seen,
        )
    start, end = offset, offset + len(shown) - 1
    notes: list[str] = []
    if encoding.name == "latin-1":
        notes.append("[Decoded as latin-1: the file is not valid UTF-8.]")
    if cut_lines:
        listed = ", ".join(map(str, cut_lines[:20])) + (" ..." if len(cut_lines) > 20 else "")
        notes.append(
            f"[Line(s) {listed} longer than {max_chars} characters were cut. "
            f"To see the rest of line N: bash `sed -n 'Np' {path} | cut -c {max_chars + 1}-`]"
        )
        details["line_truncations"] = cut_lines
    details.update(start_line=start, end_line=end, has_more=stopped_by is not None)
    if stopped_by:
        next_offset = end + 1
        reason = f" ({max_bytes / 1024:.1f}KB limit)" if stopped_by == "bytes" else ""
        notes.append(
            f"[Showing lines {start}-{end}{reason}. Use offset={next_offset} to continue.]"
        )
        details.update(next_offset=next_offset, truncated_by=stopped_by)
    else:
        details["total_lines"] = seen
    text = "\n".join(shown)
    if notes:
        text += "\n\n" + "\n".join(notes)
    return text_result(text, **details)
