"""Bytes to text and back without losing what the file had: BOM, UTF-16LE, line endings.

Decoding streams: ``iter_lines`` reads fixed-size chunks and never holds more than one capped
line, so the first page of a 1 GiB file, or a 1 GiB file with no newline, costs kilobytes.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

UTF8_BOM = codecs.BOM_UTF8
UTF16LE_BOM = codecs.BOM_UTF16_LE
UTF16BE_BOM = codecs.BOM_UTF16_BE
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Encoding:
    """How a file's bytes map to text. ``codec`` decodes the bytes after the BOM."""

    name: str
    codec: str
    bom: bytes = b""

    @property
    def has_bom(self) -> bool:
        return bool(self.bom)


UTF8 = Encoding("utf-8", "utf-8")
UTF8_SIG = Encoding("utf-8-bom", "utf-8", UTF8_BOM)
UTF16LE = Encoding("utf-16le-bom", "utf-16-le", UTF16LE_BOM)
UTF16BE = Encoding("utf-16be-bom", "utf-16-be", UTF16BE_BOM)
LATIN1 = Encoding("latin-1", "latin-1")


def detect(sample: bytes, complete: bool = False) -> Encoding:
    """Pick the encoding from the first bytes: a BOM, else UTF-8 if they decode, else latin-1.

    A sample cut from a longer file may end inside a multi-byte sequence, so unless ``complete``
    (the sample is the whole file) an incomplete tail is tolerated.
    """
    if sample.startswith(UTF8_BOM):
        return UTF8_SIG
    if sample.startswith(UTF16LE_BOM):
        return UTF16LE
    if sample.startswith(UTF16BE_BOM):
        return UTF16BE
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(sample, final=complete)
    except UnicodeDecodeError:
        return LATIN1
    return UTF8


def detect_for_write(head: bytes) -> Encoding:
    """The encoding a rewrite keeps: UTF-8 BOM and UTF-16LE survive; everything else is UTF-8."""
    if head.startswith(UTF8_BOM):
        return UTF8_SIG
    if head.startswith(UTF16LE_BOM):
        return UTF16LE
    return UTF8


def encode(text: str, encoding: Encoding) -> bytes:
    """Text to the bytes a file of ``encoding`` holds, BOM included and never doubled."""
    if encoding.has_bom and text.startswith("\ufeff"):
        text = text[1:]
    return encoding.bom + text.encode(encoding.codec)


def decode(data: bytes, encoding: Encoding) -> str:
    if encoding.bom and data.startswith(encoding.bom):
        data = data[len(encoding.bom) :]
    return data.decode(encoding.codec, errors="replace")


def iter_lines(stream: BinaryIO, encoding: Encoding, max_chars: int) -> Iterator[tuple[str, bool]]:
    """Yield ``(line, truncated)`` split on ``\\n`` only; a ``\\r`` stays in its line.

    A line longer than ``max_chars`` is cut to ``max_chars`` and the rest is skipped while
    streaming. A final ``\\n`` gets no line of its own; an empty stream yields nothing.
    """
    decoder = codecs.getincrementaldecoder(encoding.codec)(errors="replace")
    first = True
    parts: list[str] = []
    kept = 0
    truncated = False
    while True:
        chunk = stream.read(CHUNK)
        final = not chunk
        text = decoder.decode(chunk, final=final)
        if first and text:
            if encoding.bom and text.startswith("\ufeff"):
                text = text[1:]
            first = False
        start = 0
        while True:
            newline = text.find("\n", start)
            piece = text[start:] if newline < 0 else text[start:newline]
            if kept < max_chars:
                room = max_chars - kept
                if len(piece) > room:
                    truncated = True
                    piece = piece[:room]
                parts.append(piece)
                kept += len(piece)
            elif piece:
                truncated = True
            if newline < 0:
                break
            yield "".join(parts), truncated
            parts, kept, truncated = [], 0, False
            start = newline + 1
        if final:
            if kept or truncated:
                yield "".join(parts), truncated
            return


def dominant_line_ending(text: str) -> str:
    """The first line ending seen (``\\r\\n``, ``\\n`` or ``\\r``); ``\\n`` when there is none."""
    for i, ch in enumerate(text):
        if ch == "\n":
            return "\n"
        if ch == "\r":
            return "\r\n" if text[i + 1 : i + 2] == "\n" else "\r"
    return "\n"
