"""read: images, PDFs, notebooks, and path spelling variants."""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools.assertions import expect_error, expect_ok, parse_read
from pytest_agenttools.fixtures import (
    NAME_CURLY_APOSTROPHE,
    NAME_NARROW_NBSP,
    NAME_NFD,
    builders,
)
from pytest_agenttools.markers import clause

IMAGES = {
    "images/pixel.png": "image/png",
    "images/pixel.jpg": "image/jpeg",
    "images/pixel.gif": "image/gif",
    "images/pixel.webp": "image/webp",
}


@clause("READ-IMG-01")
@pytest.mark.parametrize(("fixture", "mime"), sorted(IMAGES.items()))
def test_image_block(tools: Any, ws: Any, fixture: str, mime: str) -> None:
    target = ws.copy_fixture(fixture)
    result = expect_ok(tools.read(path=target.name))
    images = result.images
    assert len(images) == 1, f"expected one image block, saw {len(images)}: {result.text!r:.200}"
    assert images[0][0] == mime, f"mimeType should be {mime}, saw {images[0][0]}"
    assert images[0][1] == ws.get(target.name), "the image block must carry the file's exact bytes"


@clause("READ-IMG-02")
def test_image_by_magic_bytes(tools: Any, ws: Any) -> None:
    ws.copy_fixture("images/pixel.png", "screenshot.txt")
    result = expect_ok(tools.read(path="screenshot.txt"))
    assert [m for m, _ in result.images] == ["image/png"], "a PNG named .txt is still an image"


def _pdf_pages(tools: Any, **arguments: Any) -> list[int]:
    text = expect_ok(tools.read(**arguments)).text
    return [int(line.split()[2]) for line in text.split("\n") if line.startswith("== Page ")]


@clause("READ-PDF-01")
def test_pdf_text_by_page(tools: Any, ws: Any) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    text = expect_ok(tools.read(path="doc.pdf")).text
    for n in (1, 2, 3):
        assert f"== Page {n} ==" in text, f"missing the header of page {n}: {text!r:.300}"
        assert f"This is page {n} of the fixture." in text
    assert text.index("== Page 1 ==") < text.index("== Page 2 ==") < text.index("== Page 3 ==")


@clause("READ-PDF-02")
@pytest.mark.parametrize(
    ("pages", "expected"), [("2", [2]), (3, [3]), ("2-3", [2, 3]), ("2-", [2, 3]), ("1-1", [1])]
)
def test_pdf_page_ranges(tools: Any, ws: Any, pages: Any, expected: list[int]) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    assert _pdf_pages(tools, path="doc.pdf", pages=pages) == expected


@clause("READ-PDF-02")
@pytest.mark.parametrize("pages", ["0", "3-1", "9", "x", "1-2-3", ""])
def test_pdf_bad_ranges(tools: Any, ws: Any, pages: str) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    expect_error(tools.read(path="doc.pdf", pages=pages), "page")


@clause("READ-PDF-02")
def test_pdf_too_many_pages_in_one_call(tools: Any, ws: Any) -> None:
    most = tools.limit("read.pdf_max_pages")
    builders.make_pdf(ws.file("long.pdf"), [f"page {n}" for n in range(1, most + 3)])
    expect_error(tools.read(path="long.pdf", pages=f"1-{most + 1}"), str(most))
    assert _pdf_pages(tools, path="long.pdf", pages=f"1-{most}") == list(range(1, most + 1))


@clause("READ-PDF-03")
def test_long_pdf_needs_pages(tools: Any, ws: Any) -> None:
    whole = tools.limit("read.pdf_whole_max_pages")
    builders.make_pdf(ws.file("long.pdf"), [f"page {n}" for n in range(1, whole + 2)])
    expect_error(tools.read(path="long.pdf"), str(whole + 1), "pages")
    builders.make_pdf(ws.file("short.pdf"), [f"page {n}" for n in range(1, whole + 1)])
    assert _pdf_pages(tools, path="short.pdf") == list(range(1, whole + 1))


@clause("READ-NB-01")
def test_notebook_cells_and_outputs(tools: Any, ws: Any) -> None:
    ws.copy_fixture("notebook/outputs.ipynb", "nb.ipynb")
    result = expect_ok(tools.read(path="nb.ipynb"))
    text = result.text
    for needle in ("# Title", 'print("hello")', "hello", "1 + 1"):
        assert needle in text, f"notebook output lacks {needle!r}: {text!r:.400}"
    assert text.index("# Title") < text.index('print("hello")') < text.index("1 + 1")
    assert "x" * 12000 not in text, "an output over the cap must be replaced by a hint"
    assert [m for m, _ in result.images] == ["image/png"], "the display_data PNG is an image block"


@clause("READ-VAR-01")
@pytest.mark.parametrize(
    ("fixture", "typed"),
    [
        (NAME_NFD, "caf\u00e9.txt"),
        (NAME_NARROW_NBSP, "Screenshot 2024-05-01 at 9.41.02 AM.txt"),
        (NAME_CURLY_APOSTROPHE, "Bob's notes.txt"),
    ],
    ids=["nfd", "narrow-nbsp-am", "curly-apostrophe"],
)
def test_path_variants(tools: Any, ws: Any, style: str, fixture: str, typed: str) -> None:
    ws.copy_fixture(fixture)
    assert not os.path.exists(ws.file(typed)), "the typed spelling must differ on disk"
    result = expect_ok(tools.read(path=typed))
    shown = parse_read(result.text, style)
    assert shown.texts[:1] == [ws.get(os.path.basename(fixture)).decode().rstrip("\n")]


@clause("READ-VAR-01")
def test_at_prefix_and_nbsp(tools: Any, ws: Any, style: str) -> None:
    ws.put("my notes.txt", "hello\n")
    shown = parse_read(expect_ok(tools.read(path="@my\u00a0notes.txt")).text, style)
    assert shown.texts[:1] == ["hello"]


@clause("READ-VAR-01")
def test_exact_name_wins_over_variant(tools: Any, ws: Any, style: str) -> None:
    ws.put("Bob's notes.txt", "straight\n")
    ws.put("Bob\u2019s notes.txt", "curly\n")
    shown = parse_read(expect_ok(tools.read(path="Bob's notes.txt")).text, style)
    assert shown.texts[:1] == ["straight"]


@clause("READ-VAR-01")
def test_missing_under_every_spelling(tools: Any, ws: Any) -> None:
    expect_error(tools.read(path="Nobody's file.txt"))
