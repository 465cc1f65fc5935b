"""write: round trips for any text and any prior encoding (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given

from pytest_agenttools.assertions import expect_ok, parse_read
from pytest_agenttools.markers import clause

from .strategies import file_text

PRIOR = {
    "none": (b"", "utf-8", None),
    "utf8-bom": (b"\xef\xbb\xbf", "utf-8", "write.keep_bom"),
    "utf16le": (b"\xff\xfe", "utf-16-le", "write.keep_utf16le"),
}


@clause("WRITE-ROUND-01")
@pytest.mark.parametrize("prior", sorted(PRIOR))
@given(text=file_text())
def test_bytes_on_disk(tools: Any, ws: Any, prior: str, text: str) -> None:
    bom, codec, feature = PRIOR[prior]
    if feature and not tools.manifest.has_feature(feature):
        pytest.skip(f"feature {feature} not declared by {tools.manifest.name}")
    where = ws.subdir()
    target = where.root / "f.txt"
    if prior != "none":
        target.write_bytes(bom + "old\n".encode(codec))
    expect_ok(tools.write(path=str(target), content=text))
    assert target.read_bytes() == bom + text.encode(codec)


@clause("WRITE-ROUND-01")
@given(text=file_text())
def test_write_then_read(tools: Any, ws: Any, style: str, text: str) -> None:
    tools.configure(
        **{"read.max_lines": 100_000, "read.max_bytes": 10_000_000, "read.max_line_chars": 100_000}
    )
    assume(text != "")  # the empty file is READ-EMPTY-01's
    where = ws.subdir()
    path = str(where.root / "f.txt")
    expect_ok(tools.write(path=path, content=text))
    result = expect_ok(tools.read(path=path))
    joined = "\n".join(parse_read(result.text, style).texts)
    assert text in (joined, joined + "\n")
