"""The reference read's own choices, which no conformance clause judges, pinned on purpose.

The suite requires that binary files are not shown and text files are; where between the two
the line falls (the share of control characters, the list of binary extensions, the words of
the reason) is the reference's policy. So are its notebook and PDF presentation (the language
tag, the truncation notes and their units), its error codes and free-form details, and how it
caps an open page range. A change to any of them should be deliberate: these tests say so, and
they kill the mutants of that policy in the mutation run (docs/mutation.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.fixtures.builders import make_pdf
from pytest_agenttools.implementations.reference.read_pdf import parse_pages
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.sniff import CONTROL_RATIO, Kind, classify
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


@pytest.mark.parametrize("name", ["archive.zip", "ARCHIVE.ZIP", "model.Safetensors", "lib.so"])
def test_binary_extension_refused_whatever_the_content(name: str) -> None:
    extension = name[name.rindex(".") :].lower()
    assert classify(b"plain words\n", name) == Kind(
        "binary", reason=f"its extension {extension} marks a binary format"
    )


@pytest.mark.parametrize(
    ("sample", "kind"),
    [
        (b"\xfe\xff\x00h\x00i\x00\n", Kind("text")),  # UTF-16BE with its BOM
        (b"\xff\xfeh\x00i\x00\n\x00", Kind("text")),  # UTF-16LE with its BOM
        (b"", Kind("text")),
        (b"plain words\n", Kind("text")),
        (b"a\x00b", Kind("binary", reason="it contains NUL bytes")),
    ],
    ids=["utf16be", "utf16le", "empty", "plain", "nul"],
)
def test_kind_of_sample(sample: bytes, kind: Kind) -> None:
    assert classify(sample, "file.txt") == kind


@pytest.mark.parametrize(
    ("control", "kind"),
    [(20, "text"), (30, "text"), (31, "binary")],
    ids=["a-fifth", "exactly-the-ratio", "above-the-ratio"],
)
def test_control_share_threshold(control: int, kind: str) -> None:
    # CONTROL_RATIO of the first bytes may be control characters; one more makes it binary
    assert CONTROL_RATIO == 0.30
    sample = b"\x01" * control + b"x" * (100 - control)
    assert classify(sample, "file.txt").kind == kind


@pytest.mark.parametrize("byte", [0x01, 0x1B, 0x1F, 0x7F])
def test_reason_gives_the_share_of_control_characters(byte: int) -> None:
    sample = bytes([byte]) * 7 + b"abc"
    assert classify(sample, "file.txt") == Kind(
        "binary", reason="70% of its first bytes are control characters"
    )


@pytest.mark.parametrize("byte", [0x09, 0x0A, 0x0D, 0x20])
def test_whitespace_is_not_control(byte: int) -> None:
    assert classify(bytes([byte]) * 90 + b"x" * 10, "file.txt") == Kind("text")


def _ftyp(brand: bytes) -> bytes:
    """The first box of an ISO media file: its size, ``ftyp``, the major brand, a version."""
    return (24).to_bytes(4, "big") + b"ftyp" + brand + b"\0\0\2\0" + brand + b"mp41" + bytes(32)


@pytest.mark.parametrize(
    ("sample", "mime"),
    [
        (_ftyp(b"isom"), "video/mp4"),
        (_ftyp(b"mp42"), "video/mp4"),
        (_ftyp(b"qt  "), "video/quicktime"),
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01" + bytes(32), "video/webm"),
    ],
    ids=["mp4-isom", "mp4-mp42", "quicktime", "webm"],
)
def test_video_type_by_header(sample: bytes, mime: str) -> None:
    # the named type is the reference's policy (READ-VID-01 asks only that the refusal say
    # video); it is what the refusal shows, so a file is named as what it is
    assert classify(sample, "clip") == Kind("video", mime_type=mime)


@pytest.mark.parametrize("brand", [b"heic", b"heix", b"mif1", b"avif"])
def test_still_image_brands_of_iso_media_are_no_video(brand: bytes) -> None:
    assert classify(_ftyp(brand), "photo").kind != "video"


def test_video_refusal_names_the_type_and_the_way_out(tmp_path: Path) -> None:
    (tmp_path / "my clip.mov").write_bytes(_ftyp(b"qt  "))
    result = ReferenceTools().call("read", {"path": "my clip.mov"}, str(tmp_path))
    said = "\n".join(b["text"] for b in result["content"] if b["type"] == "text")
    assert result["isError"], said
    assert "my clip.mov is a video (video/quicktime)" in said, said
    # the command is one a shell runs as shown: the path quoted
    assert f"ffmpeg -i '{tmp_path / 'my clip.mov'}' -vf" in said and "frame_%03d.png" in said, said


# --- notebooks and PDFs ---------------------------------------------------------------------


def read(tmp_path: Path, name: str, tools: ReferenceTools | None = None, **args: Any) -> Any:
    return (tools or ReferenceTools()).call("read", {"path": name, **args}, str(tmp_path))


def text(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def notebook(metadata: dict[str, Any], cells: int = 1, size: int = 10) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"c{n}",
                    "execution_count": 1,
                    "metadata": {},
                    "source": "x" * size,
                    "outputs": [],
                }
                for n in range(cells)
            ],
            "metadata": metadata,
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.mark.parametrize(
    ("metadata", "tag"),
    [
        ({"kernelspec": {"language": "julia", "name": "j"}}, "<language>julia</language>"),
        ({"kernelspec": {"name": "k"}, "language_info": {"name": "r"}}, "<language>r</language>"),
        ({"language_info": {"name": "python"}}, None),
        ({}, None),
    ],
    ids=["kernelspec", "language-info", "python", "none"],
)
def test_notebook_language_tag(tmp_path: Path, metadata: dict[str, Any], tag: str | None) -> None:
    (tmp_path / "n.ipynb").write_text(notebook(metadata))
    shown = text(read(tmp_path, "n.ipynb"))
    if tag is None:
        assert "<language>" not in shown
    else:
        assert tag in shown


def test_notebook_details_and_truncation_note(tmp_path: Path) -> None:
    (tmp_path / "n.ipynb").write_text(notebook({}, cells=8, size=400))
    tools = ReferenceTools({"read.notebook_max_bytes": 2048})
    result = read(tmp_path, "n.ipynb", tools)
    details = result["details"]
    shown = details["cells_shown"]
    assert (result["isError"], details["path"], details["cells_total"]) == (
        False,
        str(tmp_path / "n.ipynb"),
        8,
    )
    assert 1 <= shown < 8 and details["observation"]["truncated"] is True
    assert f"[Showing cells 1-{shown} of 8 (2.0KB limit). " in text(result)
    chars = ReferenceTools(
        {"read.notebook_max_bytes": 2048}, units={"read.notebook_max_bytes": "chars"}
    )
    assert "(2.0K chars limit)" in text(read(tmp_path, "n.ipynb", chars))


def test_notebook_budget_counts_images_and_the_unit(tmp_path: Path) -> None:
    # 4 cells of 300 "é" (600 bytes, 300 chars each) against a budget of 1400
    (tmp_path / "n.ipynb").write_text(
        notebook({}, cells=4, size=0).replace('""', '"' + "é" * 300 + '"')
    )
    in_bytes = read(tmp_path, "n.ipynb", ReferenceTools({"read.notebook_max_bytes": 1400}))
    in_chars = read(
        tmp_path,
        "n.ipynb",
        ReferenceTools(
            {"read.notebook_max_bytes": 1400}, units={"read.notebook_max_bytes": "chars"}
        ),
    )
    assert in_bytes["details"]["cells_shown"] == 2
    assert in_chars["details"]["cells_shown"] == 4


def test_invalid_notebook_is_refused_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "n.ipynb").write_text("{not json")
    result = read(tmp_path, "n.ipynb")
    assert result["isError"] and result["details"] == {
        "error": "invalid_notebook",
        "path": str(tmp_path / "n.ipynb"),
    }
    assert text(result).startswith(f"{tmp_path / 'n.ipynb'} is not a readable Jupyter notebook")


def test_invalid_pdf_is_refused_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "d.pdf").write_bytes(b"%PDF-1.4 nothing else")
    result = read(tmp_path, "d.pdf")
    assert result["isError"] and result["details"] == {
        "error": "invalid_pdf",
        "path": str(tmp_path / "d.pdf"),
    }
    assert f"{tmp_path / 'd.pdf'} could not be read as a PDF (" in text(result)


def test_long_pdf_refusal_details(tmp_path: Path) -> None:
    make_pdf(tmp_path / "l.pdf", [f"page {n}" for n in range(1, 13)])
    result = read(tmp_path, "l.pdf")
    assert result["details"] == {
        "error": "pages_required",
        "pages_total": 12,
        "path": str(tmp_path / "l.pdf"),
    }


def test_pdf_truncation_details_and_note(tmp_path: Path) -> None:
    make_pdf(tmp_path / "d.pdf", ["a" * 300, "b" * 300, "c" * 300, "d" * 300])
    result = read(tmp_path, "d.pdf", ReferenceTools({"read.pdf_max_bytes": 700}), pages="1-4")
    details = result["details"]
    assert (details["path"], details["pages_total"], details["pages_shown"]) == (
        str(tmp_path / "d.pdf"),
        4,
        [1, 2],
    )
    assert details["next_pages"] == "3-4"
    assert "[Truncated at page 3 (0.7KB limit). Use pages='3-4' to continue.]" in text(result)
    whole = read(tmp_path, "d.pdf", pages="1-4")
    assert whole["details"]["observation"]["truncated"] is False


def test_pdf_budget_in_chars_counts_characters(tmp_path: Path) -> None:
    make_pdf(tmp_path / "d.pdf", ["\u00e9" * 200, "\u00e9" * 200])
    units = {"read.pdf_max_bytes": "chars"}
    in_chars = read(tmp_path, "d.pdf", ReferenceTools({"read.pdf_max_bytes": 500}, units=units))
    in_bytes = read(tmp_path, "d.pdf", ReferenceTools({"read.pdf_max_bytes": 500}))
    assert in_chars["details"]["observation"]["pages"] == [1, 2]
    assert in_bytes["details"]["observation"]["pages"] == [1]
    assert "(0.5K chars limit)" not in text(in_chars)
    cut = read(tmp_path, "d.pdf", ReferenceTools({"read.pdf_max_bytes": 100}, units=units))
    (part,) = cut["details"]["observation"]["page_texts"]
    assert part == "\u00e9" * (100 - len("== Page 1 ==\n"))
    assert "(0.1K chars limit)" in text(cut)


@pytest.mark.parametrize(
    ("spec", "pages"),
    [("2-", (2, 5)), ("4-", (4, 7)), ("9-", (9, 9)), (3, (3, 3))],
)
def test_open_range_is_capped_at_the_page_limit(spec: object, pages: tuple[int, int]) -> None:
    assert parse_pages(spec, 9, 4) == pages


@pytest.mark.parametrize("spec", [True, "0" * 62 + "1-2", " " * 64 + "1"])
def test_page_range_guards(spec: object) -> None:
    with pytest.raises(ToolError):
        parse_pages(spec, 9, 4)


def test_page_range_just_within_the_length_guard() -> None:
    assert parse_pages(" " * 62 + "12", 20, 4) == (12, 12)


@pytest.mark.parametrize(
    ("spec", "shown"),
    [("x" * 38, repr("x" * 38)), ("y" * 39, "'" + "y" * 36 + "..."), (["a"], "['a']")],
)
def test_bad_page_range_is_quoted_and_shortened(spec: object, shown: str) -> None:
    with pytest.raises(ToolError) as caught:
        parse_pages(spec, 9, 4)
    assert caught.value.message.startswith(f"pages={shown} is not a page range.")
    assert caught.value.details == {"argument": "pages"} and caught.value.code == "invalid_argument"


def test_too_many_pages_names_the_counts() -> None:
    with pytest.raises(ToolError) as caught:
        parse_pages("3-9", 20, 4)
    assert "asks for 7 pages; at most 4 per read. Use pages='3-6' and continue" in (
        caught.value.message
    )


# --- text pages and images ------------------------------------------------------------------


def test_offset_zero_reads_from_the_start_and_below_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("a\nb\n")
    assert read(tmp_path, "t.txt", offset=0)["details"]["observation"]["lines"] == ["a", "b"]
    cases: tuple[tuple[dict[str, Any], str], ...] = (
        ({"offset": -1}, "offset"),
        ({"limit": 0}, "limit"),
    )
    for arguments, argument in cases:
        refused = read(tmp_path, "t.txt", None, **arguments)
        assert refused["isError"] and refused["details"] == {
            "error": "invalid_argument",
            "argument": argument,
        }


def test_missing_path_names_the_tool(tmp_path: Path) -> None:
    refused = ReferenceTools().call("read", {}, str(tmp_path))
    assert text(refused) == "read: missing required argument 'path' (a string)."


def test_page_details_and_observation(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("a\nb\n")
    result = read(tmp_path, "t.txt", limit=1)
    assert result["isError"] is False
    assert result["details"] == {
        "path": str(tmp_path / "t.txt"),
        "encoding": "utf-8",
        "bom": False,
        "offset_unit": "line",
        "observation": {
            "kind": "text",
            "start_line": 1,
            "lines": ["a"],
            "cut_lines": [],
            "truncated": True,
            "encoding": "utf-8",
            "bom": False,
            "next_offset": 2,
            "truncated_by": "limit",
        },
        "start_line": 1,
        "end_line": 1,
        "has_more": True,
        "next_offset": 2,
        "truncated_by": "limit",
    }


def test_empty_file_details_and_observation(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    details = read(tmp_path, "e.txt")["details"]
    assert details["observation"] == {
        "kind": "text",
        "start_line": 1,
        "lines": [],
        "cut_lines": [],
        "truncated": False,
        "encoding": "utf-8",
        "bom": False,
        "total_lines": 0,
    }
    assert (details["empty"], details["has_more"], details["total_lines"]) == (True, False, 0)


def test_a_limit_equal_to_the_line_cap_is_what_stopped_the_page(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("x\n" * 10)
    tools = ReferenceTools({"read.max_lines": 3})
    observation = read(tmp_path, "t.txt", tools, limit=3)["details"]["observation"]
    assert (observation["truncated_by"], observation["next_offset"]) == ("limit", 4)
    observation = read(tmp_path, "t.txt", tools)["details"]["observation"]
    assert observation["truncated_by"] == "lines"


def test_text_size_cap_fits_exactly(tmp_path: Path) -> None:
    # 300 bytes hold exactly 100 lines of "ab\n": the reference fills the page to the byte
    (tmp_path / "s.txt").write_text("ab\n" * 200)
    result = read(tmp_path, "s.txt", ReferenceTools({"read.max_bytes": 300}))
    assert len(result["details"]["observation"]["lines"]) == 100
    assert "[Showing lines 1-100 (0.3KB limit). Use offset=101 to continue.]" in text(result)


def test_text_size_cap_in_chars(tmp_path: Path) -> None:
    # "éé\n" is 3 chars and 5 bytes: 2048 chars hold 682 lines, 2048 bytes 409
    (tmp_path / "s.txt").write_text("éé\n" * 1000)
    units = {"read.max_bytes": "chars"}
    chars = read(tmp_path, "s.txt", ReferenceTools({"read.max_bytes": 2048}, units=units))
    size = read(tmp_path, "s.txt", ReferenceTools({"read.max_bytes": 2048}))
    assert len(chars["details"]["observation"]["lines"]) == 682
    assert len(size["details"]["observation"]["lines"]) == 409
    assert "(2.0K chars limit)" in text(chars) and "(2.0KB limit)" in text(size)


@pytest.mark.parametrize(("cut", "listed"), [(20, None), (21, " ...")])
def test_cut_lines_are_listed_up_to_twenty(tmp_path: Path, cut: int, listed: str | None) -> None:
    (tmp_path / "c.txt").write_text("long line here\n" * cut)
    shown = text(read(tmp_path, "c.txt", ReferenceTools({"read.max_line_chars": 4})))
    numbers = ", ".join(str(n) for n in range(1, 21))
    assert f"[Line(s) {numbers}{listed or ''} longer than 4 characters were cut." in shown


def test_own_operations_are_used(tmp_path: Path) -> None:
    from pytest_agenttools.implementations.reference.read import ReadOps

    class EverythingBinary(ReadOps):
        def classify(self, sample: bytes, path: str) -> Kind:
            return Kind("binary", reason="a test says so")

    (tmp_path / "t.txt").write_text("plain\n")
    refused = read(tmp_path, "t.txt", ReferenceTools(ops={"read": EverythingBinary()}))
    assert refused["isError"] and refused["details"]["error"] == "binary_file"
    assert "(a test says so)" in text(refused)


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005050200"
    "5fc8f1d20000000049454e44ae426082"
)


def test_image_cap_is_inclusive_and_details(tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(PNG)
    exact = read(tmp_path, "p.png", ReferenceTools({"read.max_image_bytes": len(PNG)}))
    assert exact["isError"] is False
    assert [b["type"] for b in exact["content"]].count("image") == 1
    assert exact["details"]["mimeType"] == "image/png" and exact["details"]["bytes"] == len(PNG)
    assert exact["details"]["path"] == str(tmp_path / "p.png")
    over = read(tmp_path, "p.png", ReferenceTools({"read.max_image_bytes": len(PNG) - 1}))
    assert over["isError"] and over["details"] == {
        "error": "too_large",
        "path": str(tmp_path / "p.png"),
    }
    assert f"larger than {len(PNG) - 1} bytes" in text(over)
