"""read: images, PDFs, notebooks, and path spellings (variants, `~`, `file://`)."""

from __future__ import annotations

import io
import json
import os
from typing import Any
from urllib.parse import quote

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.read_checks import CEILING_TEXT, limit_in_force, observed
from pytest_agenttools.fixtures import (
    NAME_CURLY_APOSTROPHE,
    NAME_NARROW_NBSP,
    NAME_NFD,
    builders,
)
from pytest_agenttools.harness.assertions import (
    expect_error,
    expect_in_order,
    expect_names_argument,
    expect_number,
    expect_ok,
    read_obs,
)
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.run.session import NOT_RUN

IMAGES = {
    "images/pixel.png": "image/png",
    "images/pixel.jpg": "image/jpeg",
    "images/pixel.gif": "image/gif",
    "images/pixel89a.gif": "image/gif",
    "images/pixel.webp": "image/webp",
}
NOTEBOOK_SOURCES = ["# Title", 'print("hello")', "1 + 1"]
#: a page count far beyond any sane per-call page cap (undeclared PDF limits are probed with it)
PROBE_PAGES = 200


@clause("READ-IMG-03")
@pytest.mark.parametrize(("fixture", "mime"), sorted(IMAGES.items()))
def test_image_block(tools: ToolClient, ws: Workspace, fixture: str, mime: str) -> None:
    target = ws.copy_fixture(fixture)
    result, obs = observed(tools, path=target.name)
    images = result.images
    assert len(images) == 1, f"expected one image block, saw {len(images)}: {result.text!r:.200}"
    assert images[0][0] == mime, f"mimeType should be {mime}, saw {images[0][0]}"
    assert images[0][1] == ws.get(target.name), "the image block must carry the file's exact bytes"
    assert (obs.kind, obs.mime_type) == ("image", mime)


#: the longest side of the large images when no read.image_max_dimension is declared
UNDECLARED_DIMENSION = 2000


def _large_size(manifest: Manifest) -> tuple[int, int, int]:
    """A width and height past the declared (or usual) image dimension limit, of an odd aspect
    ratio (so a crop or a stretch shows), and that limit."""
    declared = manifest.limit("read.image_max_dimension")
    limit = int(declared.value) if declared else UNDECLARED_DIMENSION
    return limit + limit // 2 + 7, limit // 3 + 1, limit


def _decoded(data: bytes, mime: str) -> tuple[int, int]:
    """The size of a valid image of type ``mime``, decoded in full."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        assert image.format == builders.IMAGE_FORMATS[mime], (
            f"the block says {mime} but holds a {image.format} image"
        )
        image.load()
        return image.size


@clause("READ-IMG-03")
def test_large_image_is_exact_unless_resize_is_declared(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    width, height, limit = _large_size(manifest)
    if manifest.has_feature("read.image_resize"):
        pytest.skip(
            f"{NOT_RUN}{manifest.name} declares read.image_resize: READ-IMG-04 judges an image "
            f"of {width}x{height} against read.image_max_dimension = {limit}"
        )
    target = builders.make_image(ws.file("wide.png"), width, height)
    result, obs = observed(tools, path=target.name)
    assert [m for m, _ in result.images] == ["image/png"], f"one PNG block; {result.text!r:.200}"
    assert result.images[0][1] == ws.get(target.name), (
        f"an image of {width}x{height} was changed, but read.image_resize is not declared: "
        "undeclared, every image is sent as the file's exact bytes"
    )
    assert (obs.kind, obs.mime_type, obs.resized) == ("image", "image/png", False)


@clause("READ-IMG-04")
@pytest.mark.parametrize("mime", ["image/png", "image/jpeg"])
@pytest.mark.parametrize("shape", ["wide", "tall"])
def test_large_image_is_resized_and_says_so(
    tools: ToolClient, ws: Workspace, manifest: Manifest, mime: str, shape: str
) -> None:
    long_side, short_side, limit = _large_size(manifest)
    width, height = (long_side, short_side) if shape == "wide" else (short_side, long_side)
    name = f"{shape}.{builders.IMAGE_FORMATS[mime].lower()}"
    builders.make_image(ws.file(name), width, height, mime)
    result, obs = observed(tools, path=name)
    images = result.images
    assert len(images) == 1, f"one image block, saw {len(images)}: {result.text!r:.200}"
    sent_mime, data = images[0]
    assert sent_mime in builders.IMAGE_FORMATS, f"a PNG, JPEG, GIF or WEBP block, not {sent_mime}"
    assert obs.mime_type == sent_mime, (
        f"the observation says {obs.mime_type}, the block {sent_mime}"
    )
    sent = _decoded(data, sent_mime)
    scale = limit / max(width, height)
    expected = (width * scale, height * scale)
    assert max(sent) <= limit, f"sent {sent[0]}x{sent[1]}, over the {limit}-pixel limit"
    assert all(abs(s - e) <= 1 for s, e in zip(sent, expected, strict=True)), (
        f"{width}x{height} scaled to fit {limit} is about {expected[0]:.0f}x{expected[1]:.0f} "
        f"(the whole picture, aspect kept); sent {sent[0]}x{sent[1]}"
    )
    seen = (obs.kind, obs.resized, obs.width, obs.height, obs.original_width, obs.original_height)
    assert seen == ("image", True, *sent, width, height), (
        "the observation gives kind, resized, width, height, original_width, original_height "
        f"= ('image', True, {sent[0]}, {sent[1]}, {width}, {height}); saw {seen}"
    )
    assert str(width) in result.text and str(height) in result.text, (
        f"the text must say the image was resized from {width}x{height}: {result.text!r:.300}"
    )


@clause("READ-IMG-05")
@pytest.mark.parametrize("name", ["screen.bmp", "screen"])
def test_bmp_is_converted_or_refused_by_name(tools: ToolClient, ws: Workspace, name: str) -> None:
    from PIL import Image

    Image.new("RGB", (40, 30), (200, 30, 30)).save(ws.file(name), format="BMP")
    raw = ws.get(name)
    result = tools.read(path=name)
    said = result.text.replace(str(ws.file(name)), "").replace(name, "")  # the type, not the name
    assert "bmp" in said.lower(), (
        f"the result must name the type (BMP) of {name}: {result.text!r:.300}"
    )
    assert raw[:10].decode("latin-1") not in result.text, "the BMP's bytes are shown as text"
    if result.is_error:
        return
    obs = read_obs(result)
    images = result.images
    assert len(images) == 1, f"a BMP sent as one image block; saw {len(images)}"
    mime, data = images[0]
    assert mime in builders.IMAGE_FORMATS, f"a BMP is sent as PNG, JPEG, GIF or WEBP, not {mime}"
    assert (obs.kind, obs.mime_type) == ("image", mime), (obs.kind, obs.mime_type)
    assert _decoded(data, mime) == (40, 30), "the converted image has the BMP's size"


#: the first bytes of an MP4 (an ftyp box, then an empty mdat box) and of a WebM file
VIDEOS = {
    "mp4": (24).to_bytes(4, "big")
    + b"ftypisom"
    + b"\0\0\2\0"
    + b"isomiso2"
    + (8).to_bytes(4, "big")
    + b"mdat"
    + bytes(64),
    "webm": b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\x82\x84webm" + bytes(64),
}


@clause("READ-VID-01")
@pytest.mark.parametrize("kind", sorted(VIDEOS))
@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
def test_video_without_support_says_so(
    tools: ToolClient, ws: Workspace, manifest: Manifest, kind: str, named: bool
) -> None:
    if manifest.has_feature("read.video"):
        pytest.skip(f"{NOT_RUN}{manifest.name} declares read.video: how it shows one is its own")
    name = f"clip.{kind}" if named else "clip"
    ws.put(name, VIDEOS[kind])
    result = tools.read(path=name)
    expect_error(result, what=f"a {kind} video read without read.video")
    said = result.text.replace(str(ws.file(name)), "").replace(name, "")
    assert "video" in said.lower(), f"the error must say {name} is a video: {result.text!r:.300}"


@clause("READ-IMG-02")
def test_image_by_magic_bytes(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("images/pixel.png", "screenshot.txt")
    result, obs = observed(tools, path="screenshot.txt")
    assert [m for m, _ in result.images] == ["image/png"], "a PNG named .txt is still an image"
    assert obs.kind == "image"


@clause("READ-IMG-02")
def test_riff_that_is_not_webp_is_no_image(tools: ToolClient, ws: Workspace) -> None:
    # a WAV file is a RIFF container too: only RIFF....WEBP is a WEBP image
    wav = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + bytes(24) + b"data" + bytes(4)
    ws.put("sound.wav", wav)
    result = tools.read(path="sound.wav")
    assert result.images == [], f"a RIFF/WAVE file is not an image; saw {result.images!r:.200}"
    if not result.is_error:
        assert read_obs(result).kind != "image"


# --- PDF ------------------------------------------------------------------------------------


@clause("READ-PDF-04")
def test_pdf_text_by_page(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    _, obs = observed(tools, path="doc.pdf")
    assert (obs.kind, obs.pages, obs.total_pages) == ("pdf", (1, 2, 3), 3), obs.raw
    assert not obs.truncated and obs.next_offset is None, "every page was shown"
    for number, text in zip(obs.pages, obs.page_texts, strict=True):
        assert f"This is page {number} of the fixture." in text, (
            f"page {number}'s text is {text!r:.200}"
        )


@clause("READ-PDF-04")
def test_pdf_page_texts_are_their_own(tools: ToolClient, ws: Workspace) -> None:
    words = ["amber", "basalt", "cobalt", "dolomite"]
    builders.make_pdf(ws.file("w.pdf"), [f"{w} stone\nsecond {w} line" for w in words])
    _, obs = observed(tools, path="w.pdf")
    assert obs.pages == (1, 2, 3, 4) and len(obs.page_texts) == 4
    for word, text in zip(words, obs.page_texts, strict=True):
        assert f"{word} stone" in text and f"second {word} line" in text
        assert not any(other in text for other in words if other != word), (
            f"page text of {word!r} holds another page's text: {text!r:.200}"
        )


@clause("READ-PDF-02")
@pytest.mark.parametrize(
    ("pages", "expected"),
    [("2", [2]), (3, [3]), ("2-3", [2, 3]), ("2-", [2, 3]), ("1-1", [1]), (" 1 - 2 ", [1, 2])],
)
def test_pdf_page_ranges(tools: ToolClient, ws: Workspace, pages: Any, expected: list[int]) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    _, obs = observed(tools, path="doc.pdf", pages=pages)
    assert list(obs.pages) == expected, f"pages={pages!r} shows {obs.pages}"


@clause("READ-PDF-06")
@pytest.mark.parametrize("name", ["notes.txt", "notes"])
def test_pages_on_a_text_file_is_an_error(tools: ToolClient, ws: Workspace, name: str) -> None:
    ws.put(name, "".join(f"line {n}\n" for n in range(1, 200)))
    result = tools.call("read", path=name, pages="2")
    expect_error(result, what=f"pages on a text file ({name}), which is not a PDF")


@clause("READ-PDF-02")
@pytest.mark.parametrize(
    "pages",
    ["0", "3-1", "9", "x", "1-2-3", "", "-2", "99999999999999999999999", "9" * 5000],
    ids=[
        "zero",
        "reversed",
        "past-end",
        "word",
        "three-parts",
        "empty",
        "negative",
        "huge",
        "5000-digits",
    ],
)
def test_pdf_bad_ranges(tools: ToolClient, ws: Workspace, pages: str) -> None:
    ws.copy_fixture("pdf/three_pages.pdf", "doc.pdf")
    expect_error(tools.read(path="doc.pdf", pages=pages))


@clause("READ-PDF-02")
def test_pdf_too_many_pages_in_one_call(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.pdf_max_pages", 4)
    if cap is None:
        builders.make_pdf(ws.file("long.pdf"), [f"page {n}" for n in range(1, PROBE_PAGES + 1)])
        result = tools.read(path="long.pdf", pages=f"1-{PROBE_PAGES}")
        if not result.is_error:
            obs = read_obs(result)
            assert len(obs.pages) < PROBE_PAGES and obs.truncated, (
                f"read.pdf_max_pages undeclared: pages='1-{PROBE_PAGES}' must be refused or cut "
                f"short; saw {len(obs.pages)} pages"
            )
        return
    most = int(cap.value)
    builders.make_pdf(ws.file("long.pdf"), [f"page {n}" for n in range(1, most + 3)])
    expect_error(tools.read(path="long.pdf", pages=f"1-{most + 1}"))
    _, obs = observed(tools, path="long.pdf", pages=f"1-{most}")
    assert list(obs.pages) == list(range(1, most + 1))


@clause("READ-PDF-03")
def test_long_pdf_needs_pages(tools: ToolClient, ws: Workspace, manifest: Manifest) -> None:
    cap = limit_in_force(tools, "read.pdf_whole_max_pages", 3)
    whole = int(cap.value) if cap is not None else PROBE_PAGES - 1
    builders.make_pdf(ws.file("long.pdf"), [f"page {n}" for n in range(1, whole + 2)])
    result = expect_error(tools.read(path="long.pdf"))
    expect_number(result, whole + 1, "the PDF's page count", ws.root)
    expect_names_argument(result, manifest, "read", "pages")
    if cap is None:
        return
    builders.make_pdf(ws.file("short.pdf"), [f"page {n}" for n in range(1, whole + 1)])
    _, obs = observed(tools, path="short.pdf")
    assert list(obs.pages) == list(range(1, whole + 1))


@clause("READ-PDF-05")
def test_pdf_text_is_bounded(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.pdf_max_bytes", 600)
    budget = int(cap.value) if cap is not None else CEILING_TEXT
    limit_in_force(tools, "read.pdf_max_pages", 20)
    per_page = max(150, budget // 3)
    lines = max(1, per_page // 60)
    pages = ["\n".join(f"p{n} line {k} " + "t" * 50 for k in range(lines)) for n in range(1, 7)]
    builders.make_pdf(ws.file("dense.pdf"), pages)
    _, obs = observed(tools, path="dense.pdf", pages="1-6")
    assert obs.pages and obs.pages[0] == 1, "at least part of the first page is shown"
    unit = cap.unit if cap is not None else "bytes"
    shown = sum(len(t) if unit == "chars" else len(t.encode("utf-8")) for t in obs.page_texts)
    assert shown <= budget, (
        f"the page text is {shown} {unit}, over read.pdf_max_bytes = {budget} {unit}"
    )
    assert obs.truncated and obs.next_offset == obs.pages[-1] + 1, (
        f"six pages of about {per_page} bytes each do not fit {budget}: the observation must be "
        f"truncated with next_offset = {obs.pages[-1] + 1}; saw {obs.raw!r:.300}"
    )
    _, rest = observed(tools, path="dense.pdf", pages=f"{obs.next_offset}-6")
    assert rest.pages and rest.pages[0] == obs.next_offset


@clause("READ-PDF-05")
def test_pdf_first_page_over_the_budget_is_shown_in_part(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.pdf_max_bytes", 600)
    budget = int(cap.value) if cap is not None else CEILING_TEXT
    words = [f"w{k:06d}" for k in range(budget // 7 * 2)]
    page = "\n".join(" ".join(words[i : i + 10]) for i in range(0, len(words), 10))
    builders.make_pdf(ws.file("big.pdf"), [page, "second page"])
    _, obs = observed(tools, path="big.pdf")
    assert list(obs.pages) == [1], f"part of page 1 is shown, and nothing after it: {obs.pages}"
    (shown,) = obs.page_texts
    unit = cap.unit if cap is not None else "bytes"
    size = len(shown) if unit == "chars" else len(shown.encode("utf-8"))
    assert 0 < size <= budget, f"page 1 shows {size} {unit}; the budget is {budget} {unit}"
    tokens = shown.split()
    assert tokens[:-1] == words[: len(tokens) - 1] and words[len(tokens) - 1].startswith(
        tokens[-1]
    ), f"the part shown must be the start of page 1's text; saw {shown[:120]!r}"
    assert obs.truncated and obs.next_offset == 2, obs.raw


# --- notebooks ------------------------------------------------------------------------------


@clause("READ-NB-01")
def test_notebook_cells_and_outputs(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("notebook/outputs.ipynb", "nb.ipynb")
    result, obs = observed(tools, path="nb.ipynb")
    assert obs.kind == "notebook" and obs.total_cells == 6, obs.raw
    cells = obs.cells
    assert [c.source for c in cells[:3]] == NOTEBOOK_SOURCES
    assert [c.cell_type for c in cells] == ["markdown", "code", "code", "code", "code", "raw"]
    assert cells[1].outputs == ("hello",) and cells[2].outputs == ("2",)
    assert cells[3].images == 1, "the display_data PNG is an image output"
    assert cells[4].omitted_outputs == 1 and not any("x" * 12000 in o for o in cells[4].outputs)
    assert "x" * 12000 not in result.text, "an output over the cap must be left out"
    assert [m for m, _ in result.images] == ["image/png"], "the display_data PNG is an image block"
    assert not obs.truncated, "every cell was shown"


PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAF"
    "BQIAX8jx0gAAAABJRU5ErkJggg=="
)
TRACEBACK = [
    "Traceback (most recent call last)",
    "----> 1 1/0",
    "ZeroDivisionError: division by zero",
]


def _code_cell(ident: str, source: str, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "id": ident,
        "execution_count": 1,
        "metadata": {},
        "source": source,
        "outputs": outputs,
    }


@clause("READ-NB-01")
def test_notebook_error_image_only_and_empty_cells(tools: ToolClient, ws: Workspace) -> None:
    error = {
        "output_type": "error",
        "ename": "ZeroDivisionError",
        "evalue": "division by zero",
        "traceback": TRACEBACK,
    }
    image_only = {"output_type": "display_data", "metadata": {}, "data": {"image/png": PIXEL_PNG}}
    damaged = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": "not base64 \u2713", "text/plain": "fallback text"},
    }
    cells = [
        _code_cell("empty", "", []),
        _code_cell("error", "1/0", [error]),
        _code_cell("image", "show()", [image_only]),
        _code_cell("damaged", "show_broken()", [damaged]),
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    ws.put("nb.ipynb", json.dumps(notebook))
    _, obs = observed(tools, path="nb.ipynb")
    assert [c.source for c in obs.cells] == ["", "1/0", "show()", "show_broken()"], obs.raw
    (trace,) = obs.cells[1].outputs
    assert "ZeroDivisionError" in trace and "division by zero" in trace, trace
    assert all(line in trace.split("\n") for line in TRACEBACK), (
        f"an error output shows its traceback, line by line; saw {trace!r:.300}"
    )
    assert (obs.cells[2].outputs, obs.cells[2].images) == ((), 1), (
        "an output with only an image has no text output"
    )
    assert obs.cells[3].outputs == ("fallback text",), "a damaged image leaves its text output"


def _many_cells(count: int, size: int) -> str:
    cells = [
        _code_cell(f"c{n}", f"# cell {n:04d}\n" + f"value_{n} = '" + "v" * size + "'", [])
        for n in range(count)
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@clause("READ-NB-02")
def test_notebook_view_is_bounded(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.notebook_max_bytes", 4096)
    budget = int(cap.value) if cap is not None else CEILING_TEXT
    unit = cap.unit if cap is not None else "bytes"
    count, size = 40, max(100, budget // 10)
    ws.put("big.ipynb", _many_cells(count, size))
    _, obs = observed(tools, path="big.ipynb")
    assert obs.total_cells == count, obs.raw
    shown = len(obs.cells)
    assert 1 <= shown < count and obs.truncated, (
        f"{count} cells of about {size} {unit} do not fit read.notebook_max_bytes = {budget} "
        f"{unit}: the view must stop early and say it is truncated; it shows {shown} cells"
    )
    assert [c.source for c in obs.cells] == [
        f"# cell {n:04d}\nvalue_{n} = '" + "v" * size + "'" for n in range(shown)
    ], "the cells shown are the first ones, in order"
    content = "".join(c.source + "".join(c.outputs) for c in obs.cells)
    used = len(content) if unit == "chars" else len(content.encode("utf-8"))
    assert used <= budget, f"the cells shown hold {used} {unit}, over {budget} {unit}"


# --- path spellings -------------------------------------------------------------------------


def _notebook(*outputs: str) -> str:
    cell = {
        "cell_type": "code",
        "id": "only",
        "execution_count": 1,
        "metadata": {},
        "source": ["print('a')"],
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": [text]} for text in outputs
        ],
    }
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@clause("READ-NB-01")
def test_notebook_output_cap_is_the_declared_one(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.notebook_max_output_chars", 50)
    if cap is None:
        ws.put("n.ipynb", _notebook("small", "b" * CEILING_TEXT))
        _, obs = observed(tools, path="n.ipynb")
        (only,) = obs.cells
        assert only.outputs == ("small",) and only.omitted_outputs == 1, (
            "read.notebook_max_output_chars undeclared: a 1 MiB output must be left out"
        )
        return
    most = int(cap.value)
    ws.put("n.ipynb", _notebook("a" * most, "b" * (most + 1)))
    _, obs = observed(tools, path="n.ipynb")
    (only,) = obs.cells
    assert only.outputs == ("a" * most,), "an output of exactly the cap is shown"
    assert only.omitted_outputs == 1, "an output one over the cap is left out"


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
def test_path_variants(tools: ToolClient, ws: Workspace, fixture: str, typed: str) -> None:
    ws.copy_fixture(fixture)
    assert not os.path.exists(ws.file(typed)), "the typed spelling must differ on disk"
    _, obs = observed(tools, path=typed)
    assert list(obs.lines[:1]) == [ws.get(os.path.basename(fixture)).decode().rstrip("\n")]


@clause("READ-VAR-01")
def test_at_prefix_and_nbsp(tools: ToolClient, ws: Workspace) -> None:
    ws.put("my notes.txt", "hello\n")
    _, obs = observed(tools, path="@my\u00a0notes.txt")
    assert list(obs.lines) == ["hello"]


@clause("READ-VAR-01")
def test_exact_name_wins_over_variant(tools: ToolClient, ws: Workspace) -> None:
    ws.put("Bob's notes.txt", "straight\n")
    ws.put("Bob\u2019s notes.txt", "curly\n")
    _, obs = observed(tools, path="Bob's notes.txt")
    assert list(obs.lines) == ["straight"]


@clause("READ-VAR-01")
def test_missing_under_every_spelling(tools: ToolClient, ws: Workspace) -> None:
    expect_error(tools.read(path="Nobody's file.txt"))


@clause("READ-PATH-01")
def test_home_path(tools: ToolClient, ws: Workspace) -> None:
    home = ws.subdir()
    (home.root / "notes").mkdir()
    (home.root / "notes" / "todo.txt").write_text("from home\n")
    env = {"HOME": str(home.root), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    result = expect_ok(tools.call("read", path="~/notes/todo.txt", _env=env))
    assert list(read_obs(result).lines) == ["from home"]


@clause("READ-PATH-01")
@pytest.mark.parametrize("name", ["plain.txt", "with space.txt", "ünïcödé.txt"])
def test_file_url(tools: ToolClient, ws: Workspace, name: str) -> None:
    ws.put(name, f"content of {name}\n")
    url = "file://" + quote(str(ws.file(name)))
    _, obs = observed(tools, path=url)
    assert list(obs.lines) == [f"content of {name}"]


# --- presentation -----------------------------------------------------------------------


@clause("READ-PRES-04")
def test_text_shows_the_pdf_pages(tools: ToolClient, ws: Workspace) -> None:
    words = ["quartz", "feldspar", "mica"]
    builders.make_pdf(ws.file("m.pdf"), [f"{w} is page {n}" for n, w in enumerate(words, 1)])
    result, obs = observed(tools, path="m.pdf")
    assert len(obs.page_texts) == 3
    expect_in_order(result, [t.strip() for t in obs.page_texts], "each page's text, in order")


@clause("READ-PRES-05")
def test_text_shows_the_notebook_cells(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("notebook/outputs.ipynb", "nb.ipynb")
    result, obs = observed(tools, path="nb.ipynb")
    pieces: list[str] = []
    for cell in obs.cells:
        pieces.append(cell.source)
        pieces.extend(cell.outputs)
    assert pieces, "the notebook has cells"
    expect_in_order(result, pieces, "every cell source and output, in order")
