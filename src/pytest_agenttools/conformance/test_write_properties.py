"""write: round trips and line endings for any text and any prior file (hypothesis)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.strategies import file_text
from pytest_agenttools.harness.assertions import expect_ok, precondition, read_obs
from pytest_agenttools.harness.markers import clause

PRIOR = {
    "none": (b"", "utf-8"),
    "utf8-bom": (b"\xef\xbb\xbf", "utf-8"),
    "utf16le": (b"\xff\xfe", "utf-16-le"),
}


@clause("WRITE-ROUND-01")
@pytest.mark.parametrize("prior", sorted(PRIOR))
@given(text=file_text(), leading_feff=st.booleans())
def test_bytes_on_disk(
    tools: ToolClient, ws: Workspace, prior: str, text: str, leading_feff: bool
) -> None:
    bom, codec = PRIOR[prior]
    where = ws.subdir()
    target = where.root / "f.txt"
    if prior != "none":
        target.write_bytes(bom + "old\n".encode(codec))
    content = "\ufeff" + text if leading_feff and bom else text
    expect_ok(tools.write(path=str(target), content=content))
    assert target.read_bytes() == bom + text.encode(codec)


@clause("WRITE-ROUND-01")
@given(text=file_text())
def test_write_then_read(tools: ToolClient, ws: Workspace, text: str) -> None:
    tools.configure(
        **{"read.max_lines": 100_000, "read.max_bytes": 10_000_000, "read.max_line_chars": 100_000}
    )
    assume(text != "")  # the empty file is READ-EMPTY-01's
    where = ws.subdir()
    path = str(where.root / "f.txt")
    expect_ok(tools.write(path=path, content=text))
    page = read_obs(expect_ok(tools.read(path=path)))
    assert not page.truncated, "the read limits were raised to show the whole file"
    joined = "\n".join(page.lines)
    assert text in (joined, joined + "\n"), f"read back {joined!r:.200}, wrote {text!r:.200}"


PRIORS = [
    ("new", None),
    ("lf", b"one\ntwo\n"),
    ("crlf", b"one\r\ntwo\r\n"),
    ("bom-crlf", b"\xef\xbb\xbfone\r\ntwo\r\n"),
    ("lone-cr", b"one\rtwo\r"),
]
PRIOR_FILES = st.sampled_from(PRIORS)


def _over_every_prior(test: Any) -> Any:
    """Lines written over each kind of file, and nothing over the BOM file, run every time:
    a write that drops a BOM or converts endings fails every run, not when the search happens to
    draw that file."""
    for prior in PRIORS:
        test = example(text="uno\ndos\n", prior=prior)(test)
    return example(text="", prior=PRIORS[3])(test)


@clause("WRITE-EOL-02")
@_over_every_prior
@given(text=file_text(), prior=PRIOR_FILES)
def test_line_endings_for_any_text(
    tools: ToolClient, ws: Workspace, text: str, prior: tuple[str, bytes | None]
) -> None:
    name, before = prior
    where = ws.subdir()
    target = where.root / "f.txt"
    if before is not None:
        target.write_bytes(before)
    expect_ok(tools.write(path=str(target), content=text))
    bom = b"\xef\xbb\xbf" if name == "bom-crlf" else b""
    allowed = {bom + text.encode()}
    if name in ("crlf", "bom-crlf"):
        allowed.add(bom + re.sub(r"(?<!\r)\n", "\r\n", text).encode())
    got = target.read_bytes()
    if bom:  # keeping the BOM is WRITE-BOM-01's rule; this judges the line endings after it
        with precondition("WRITE-BOM-01", "the BOM must be kept for the line endings after it"):
            assert got.startswith(bom), f"the BOM was lost: {got!r:.200}"
    assert got in allowed, f"over a {name} file, {text!r:.200} was stored as {got!r:.200}"
