"""PDF pages as text through pypdf, a bounded number of pages per call."""

from __future__ import annotations

import re
from typing import Any

from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.results import ToolError, text_result

#: page numbers of more than 12 digits name no real page; refusing them early also keeps a
#: hostile 5,000-digit value away from int() (READ-ARG-05)
RANGE = re.compile(r"^\s*(\d{1,12})\s*(?:(-)\s*(\d{1,12})?)?\s*$")


def _bad(message: str) -> ToolError:
    return ToolError("invalid_argument", message, argument="pages")


def parse_pages(spec: object, total: int, max_pages: int) -> tuple[int, int]:
    """READ-PDF-02: `3`, `"3"`, `"1-10"` or `"5-"` (1-indexed, inclusive), checked."""
    text = str(spec) if isinstance(spec, int) and not isinstance(spec, bool) else spec
    match = RANGE.match(text) if isinstance(text, str) and len(text) <= 64 else None
    if not match:
        shown = repr(spec) if len(repr(spec)) <= 40 else repr(spec)[:37] + "..."
        raise _bad(
            f"pages={shown} is not a page range. Use a page number ('3'), a range ('1-10') "
            f"or an open range ('5-'), numbered from 1; this PDF has {total} page(s)."
        )
    first = int(match.group(1))
    if match.group(2):
        last = int(match.group(3)) if match.group(3) else min(total, first + max_pages - 1)
    else:
        last = first
    if first < 1:
        raise _bad(f"pages={spec!r}: pages are numbered from 1.")
    if last < first:
        raise _bad(f"pages={spec!r}: the range ends before it starts ({first}>{last}).")
    if first > total:
        raise _bad(f"pages={spec!r}: this PDF has {total} page(s); page {first} does not exist.")
    if last - first + 1 > max_pages:
        raise _bad(
            f"pages={spec!r} asks for {last - first + 1} pages; at most {max_pages} per read. "
            f"Use pages='{first}-{first + max_pages - 1}' and continue from there."
        )
    return first, min(last, total)


def _size(text: str, in_chars: bool) -> int:
    return len(text) if in_chars else len(text.encode("utf-8", "surrogatepass"))


def _prefix(text: str, budget: int, in_chars: bool) -> str:
    if in_chars:
        return text[:budget]
    return text.encode("utf-8", "surrogatepass")[:budget].decode("utf-8", errors="ignore")


def read_pdf(path: str, pages: object, limits: Limits) -> dict[str, Any]:
    """READ-PDF-04: the text of each page, within ``read.pdf_max_bytes`` (READ-PDF-05); each
    page's text under its own header (READ-PRES-04)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        total = len(reader.pages)
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        why = f" ({exc})" if isinstance(exc, PdfReadError) else ""
        raise ToolError(
            "invalid_pdf",
            f"{path} could not be read as a PDF{why}. Check the file with `file`.",
            path=path,
        ) from None
    max_pages = limits["read.pdf_max_pages"]
    if pages is None:
        whole = limits["read.pdf_whole_max_pages"]
        if total > whole:  # READ-PDF-03
            raise ToolError(
                "pages_required",
                f"{path} has {total} pages, more than {whole} can be read at once. "
                f"Pass pages, e.g. pages='1-{min(total, max_pages)}'.",
                pages_total=total,
                path=path,
            )
        first, last = 1, total
    else:
        first, last = parse_pages(pages, total, max_pages)
    budget = limits["read.pdf_max_bytes"]
    in_chars = limits.unit("read.pdf_max_bytes") == "chars"
    blocks: list[str] = []
    shown_pages: list[int] = []
    page_texts: list[str] = []
    used = 0
    for number in range(first, last + 1):
        try:
            text = (reader.pages[number - 1].extract_text() or "").rstrip()
        except Exception:  # pypdf raises many kinds on damaged pages
            text = "[the text of this page could not be extracted; the page may be damaged]"
        block = f"== Page {number} ==\n{text}\n"
        size = _size(block, in_chars)
        if used + size > budget:
            if not blocks:  # at least part of one page, so every call makes progress
                room = _prefix(block, budget, in_chars)
                blocks.append(room)
                shown_pages.append(number)
                page_texts.append(room.partition("\n")[2])
            break
        blocks.append(block)
        shown_pages.append(number)
        page_texts.append(text)
        used += size
    body = "\n".join(blocks)
    shown_last = shown_pages[-1]
    details: dict[str, Any] = {
        "path": path,
        "pages_total": total,
        "pages_shown": [first, shown_last],
    }
    observation: dict[str, Any] = {
        "kind": "pdf",
        "pages": shown_pages,
        "page_texts": page_texts,
        "total_pages": total,
        "truncated": shown_last < last,
    }
    if shown_last < last:
        resume = shown_last + 1
        details["next_pages"] = f"{resume}-{last}"
        observation["next_offset"] = resume
        unit = "K chars" if in_chars else "KB"
        body += (
            f"\n[Truncated at page {resume} ({budget / 1024:.1f}{unit} limit). "
            f"Use pages='{resume}-{last}' to continue.]"
        )
    details["observation"] = observation
    return text_result(body, **details)
