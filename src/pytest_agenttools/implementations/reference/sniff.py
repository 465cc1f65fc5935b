"""Decide from the first bytes whether a file is an image, binary, or text.

Reading a binary file as text floods the context with garbage; refusing it with a hint is better.
Images are recognised by magic bytes (not by name), so a PNG called ``x.txt`` is still an image.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

SAMPLE_BYTES = 4100
CONTROL_RATIO = 0.30

BINARY_EXTENSIONS = frozenset(
    [
        ".7z",
        ".a",
        ".avi",
        ".bin",
        ".bmp",
        ".bz2",
        ".class",
        ".dll",
        ".dylib",
        ".eot",
        ".exe",
        ".flac",
        ".gz",
        ".ico",
        ".jar",
        ".lz4",
        ".mkv",
        ".mov",
        ".mp3",
        ".mp4",
        ".o",
        ".obj",
        ".ogg",
        ".otf",
        ".psd",
        ".pyc",
        ".pyo",
        ".rar",
        ".so",
        ".sqlite",
        ".sqlite3",
        ".tar",
        ".tgz",
        ".tif",
        ".tiff",
        ".ttf",
        ".wasm",
        ".wav",
        ".whl",
        ".woff",
        ".woff2",
        ".xz",
        ".zip",
        ".zst",
        ".safetensors",
        ".pt",
        ".pth",
        ".onnx",
        ".gguf",
        ".npy",
        ".npz",
    ]
)


@dataclass(frozen=True)
class Kind:
    kind: str  # "text" | "image" | "video" | "binary"
    mime_type: str = ""
    reason: str = ""


def image_mime(sample: bytes) -> str | None:
    if sample.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if sample.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if sample.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if sample[:4] == b"RIFF" and sample[8:12] == b"WEBP":
        return "image/webp"
    if is_bmp(sample):  # READ-IMG-05: converted to PNG before it is sent
        return "image/bmp"
    return None


#: the sizes of the BMP info headers (BITMAPCOREHEADER to BITMAPV5HEADER)
BMP_INFO_SIZES = frozenset({12, 40, 52, 56, 64, 108, 124})


def is_bmp(sample: bytes) -> bool:
    """A Windows bitmap: ``BM``, then a file header whose info header has a known size (two
    letters alone would take many a text file for an image)."""
    return (
        len(sample) >= 26
        and sample.startswith(b"BM")
        and int.from_bytes(sample[14:18], "little") in BMP_INFO_SIZES
        and sample[6:10] == b"\0\0\0\0"
    )


#: the control bytes that mark a binary file: C0 except tab, LF and CR, and DEL
CONTROL_BYTES = bytes(b for b in range(0x20) if b not in (9, 10, 13)) + b"\x7f"


def video_mime(sample: bytes) -> str | None:
    """READ-VID-01: an ISO media file (MP4, QuickTime) by its ``ftyp`` box, or WebM / Matroska
    by its EBML header."""
    if sample[4:8] == b"ftyp" and sample[8:12] not in (b"heic", b"heix", b"mif1", b"avif"):
        return "video/quicktime" if sample[8:12] == b"qt  " else "video/mp4"
    if sample.startswith(b"\x1a\x45\xdf\xa3"):
        return "video/webm"
    return None


def classify(sample: bytes, path: str) -> Kind:
    mime = image_mime(sample)
    if mime:
        return Kind("image", mime_type=mime)
    video = video_mime(sample)
    if video:
        return Kind("video", mime_type=video)
    extension = os.path.splitext(path)[1].lower()
    if extension in BINARY_EXTENSIONS:
        return Kind("binary", reason=f"its extension {extension} marks a binary format")
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return Kind("text")
    if b"\x00" in sample:
        return Kind("binary", reason="it contains NUL bytes")
    if sample:
        control = len(sample) - len(sample.translate(None, CONTROL_BYTES))  # counted in C
        if control / len(sample) > CONTROL_RATIO:
            share = round(100 * control / len(sample))
            return Kind("binary", reason=f"{share}% of its first bytes are control characters")
    return Kind("text")
