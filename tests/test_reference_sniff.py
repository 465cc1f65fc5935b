"""The reference's own choices in telling text from binary, which no conformance clause judges.

The suite requires that binary files are not shown and text files are; where between the two
the line falls (the share of control characters, the list of binary extensions, the words of
the reason) is the reference's policy, pinned here so a change to it is deliberate.
"""

from __future__ import annotations

import pytest

from pytest_agenttools.reference_impl.sniff import CONTROL_RATIO, Kind, classify


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
