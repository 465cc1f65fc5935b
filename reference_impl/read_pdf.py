"""PDF pages as text through pypdf, a bounded number of pages per call."""

from __future__ import annotations

import re
from typing import Any

from .limits import Limits
from .results import ToolError, text_result

RANGE = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$")


def parse_pages(spec: object, total: int, max_pages: int) -> tuple[int, int]:
    """Parse `3`, `"3"`, `"1-10"` or `"5-"` (1-indexed, inclusive) into a checked range."""
    text = str(spec) if isinstance(spec, int) and not isinstance(spec, bool) else spec
    match = RANGE.match(text) if isinstance(text, str) else None
    if not match:
        raise ToolError(
            "invalid_argument",
            f"pages={spec!r} is not a page range. Use a page number ('3'), a range ('1-10') "
            "or an open range ('5-'); pages are numbered from 1.",
        )
    first = int(match.group(1))
    if match.group(2):
        last = int(match.group(3)) if match.group(3) else min(total, first + max_pages - 1)
    else:
        last = first
    if first < 1:
        raise ToolError("invalid_argument", f"pages={spec!r}: pages are numbered from 1.")
    if last < first:
        raise ToolError(
            "invalid_argument", f"pages={spec!r}: the range ends before it starts ({first}>{last})."
        )
    if first > total:
        raise ToolError(
            "invalid_argument",
            f"pages={spec!r}: this PDF has {total} page(s); page {first} does not exist.",
        )
    if last - first + 1 > max_pages:
        raise ToolError(
            "invalid_argument",
            f"pages={spec!r} asks for {last - first + 1} pages; at most {max_pages} per read. "
            f"Use pages='{first}-{first + max_pages - 1}' and continue from there.",
        )
    return first, min(last, total)


def read_pdf(path: str, pages: object, limits: Limits) -> dict[str, Any]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        total = len(reader.pages)
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise ToolError(
            "invalid_pdf", f"{path} could not be read as a PDF ({exc}). Check the file with `file`."
        ) from None
    max_pages = limits["read.pdf_max_pages"]
    if pages is None:
        if total > limits["read.pdf_whole_max_pages"]:
            raise ToolError(
                "pages_required",
                f"{path} has {total} pages, more than {limits['read.pdf_whole_max_pages']} can be "
                f"read at once. Pass pages, e.g. pages='1-{min(total, max_pages)}'.",
                pages_total=total,
            )
        first, last = 1, total
    else:
        first, last = parse_pages(pages, total, max_pages)
    budget = limits["read.pdf_max_bytes"]
    blocks: list[str] = []
    used = 0
    shown_last = first - 1
    for number in range(first, last + 1):
        try:
            text = reader.pages[number - 1].extract_text() or ""
        except Exception as exc:  # pypdf raises many kinds on damaged pages
            text = f"[text of this page could not be extracted: {exc}]"
        block = f"== Page {number} ==\n{text.rstrip()}\n"
        size = len(block.encode("utf-8"))
        if used + size > budget:
            if not blocks:
                room = block.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
                blocks.append(room)
                shown_last = number
            break
        blocks.append(block)
        used += size
        shown_last = number
    body = "\n".join(blocks)
    details: dict[str, Any] = {
        "path": path,
        "pages_total": total,
        "pages_shown": [first, shown_last],
    }
    if shown_last < last:
        resume = shown_last + 1 if blocks and shown_last >= first else first
        details["next_pages"] = f"{resume}-{last}"
        body += (
            f"\n[Truncated at page {resume} ({budget / 1024:.1f}KB limit). "
            f"Use pages='{resume}-{last}' to continue.]"
        )
    return text_result(body, **details)
