"""Scale a large image down to fit ``read.image_max_dimension`` (READ-IMG-04).

Only the whole picture is scaled, its aspect ratio kept; nothing is cropped. The scaled image
is encoded in the file's own format, so the block's ``mimeType`` stays true. An image whose size
cannot be read (a damaged file behind valid magic bytes) is left as it is: what cannot be
decoded cannot be scaled, and its exact bytes are still what READ-IMG-03 asks for.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image

#: the Pillow format each image type is encoded in
FORMATS = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
}


@dataclass(frozen=True)
class Resized:
    """An image scaled down: its bytes and both sizes, in pixels."""

    data: bytes
    width: int
    height: int
    original_width: int
    original_height: int


def bmp_to_png(data: bytes) -> bytes:
    """READ-IMG-05: a BMP file as PNG (models take PNG, JPEG, GIF and WEBP only). Raises
    ``ValueError`` when it cannot be decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                out = io.BytesIO()
                image.save(out, format="PNG")
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(f"it could not be decoded ({exc})") from None
    return out.getvalue()


def fitted(width: int, height: int, limit: int) -> tuple[int, int]:
    """The size of ``width`` x ``height`` scaled so that its longer side is ``limit``."""
    scale = limit / max(width, height)
    return max(1, min(limit, round(width * scale))), max(1, min(limit, round(height * scale)))


def size_of(data: bytes) -> tuple[int, int] | None:
    """The image's width and height from its header, or None when it cannot be read."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                return image.size
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return None


def resize(data: bytes, mime: str, limit: int) -> Resized | None:
    """``data`` scaled down to fit ``limit`` x ``limit``, or None when it already fits (or its
    size cannot be read). Raises ``ValueError`` when a larger image cannot be decoded."""
    size = size_of(data)
    if size is None or max(size) <= limit:
        return None
    width, height = fitted(*size, limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                converted = image if mime != "image/jpeg" else image.convert("RGB")
                scaled = converted.resize((width, height), Image.Resampling.LANCZOS)
    except (OSError, SyntaxError, Image.DecompressionBombError) as exc:
        raise ValueError(f"it could not be decoded to scale it down ({exc})") from None
    out = io.BytesIO()
    scaled.save(out, format=FORMATS[mime])
    return Resized(out.getvalue(), width, height, size[0], size[1])
