"""edit: properties over random files (hypothesis)."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_agenttools.assertions import expect_ok
from pytest_agenttools.markers import clause, feature

from .strategies import LINE_ENDINGS, SAFE_CHARS

MARK = "\u27e6MARK\u27e7"
REPLACEMENT_CHARS = st.sampled_from([*"$&`'\\{}<>g01n \t", "\n", "$$", "\\g<0>", "${1}"])
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@st.composite
def marked_file(draw: st.DrawFn) -> tuple[str, str]:
    """(text with exactly one MARK line somewhere, the ending a replacement must use)."""
    lines = draw(st.lists(st.text(SAFE_CHARS, max_size=20), max_size=12))
    position = draw(st.integers(0, len(lines)))
    lines.insert(position, MARK)
    endings = [draw(LINE_ENDINGS) for _ in lines]
    text = "".join(line + end for line, end in zip(lines, endings, strict=True))
    if draw(st.booleans()):
        text = text[: -len(endings[-1])]
    found = LINE_BREAK.search(text)
    return text, found.group() if found else "\n"


@clause("EDIT-PROP-01")
@given(file=marked_file(), bom=st.booleans(), new=st.text(SAFE_CHARS | st.just("\n"), max_size=30))
def test_only_the_span_changes(
    tools: Any, ws: Any, file: tuple[str, str], bom: bool, new: str
) -> None:
    text, ending = file
    assume(text.count(MARK) == 1)
    prefix = b"\xef\xbb\xbf" if bom else b""
    where = ws.subdir()
    target = where.root / "f.txt"
    target.write_bytes(prefix + text.encode())
    assume(new != MARK)
    expect_ok(tools.call("edit", file_path=str(target), old_string=MARK, new_string=new))
    expected = text.replace(MARK, new.replace("\n", ending))
    assert target.read_bytes() == prefix + expected.encode()


@clause("EDIT-LIT-01")
@given(new=st.lists(REPLACEMENT_CHARS, max_size=12).map("".join))
def test_random_replacements_are_literal(tools: Any, ws: Any, new: str) -> None:
    assume(new != "TARGET")
    where = ws.subdir()
    target = where.root / "f.txt"
    target.write_bytes(b"before TARGET after\n")
    expect_ok(tools.call("edit", file_path=str(target), old_string="TARGET", new_string=new))
    assert target.read_bytes() == f"before {new} after\n".encode()


@clause("EDIT-RA-02")
@feature("edit.replace_all")
@given(new=st.lists(REPLACEMENT_CHARS, max_size=12).map("".join))
def test_random_replace_all_is_literal(tools: Any, ws: Any, new: str) -> None:
    assume(new != "T")
    where = ws.subdir()
    target = where.root / "f.txt"
    target.write_bytes(b"T.T\nT\n")
    expect_ok(
        tools.call("edit", file_path=str(target), old_string="T", new_string=new, replace_all=True)
    )
    assert target.read_bytes() == f"{new}.{new}\n{new}\n".encode()


PLAIN = st.text(st.sampled_from([*"abcxyz019 ,;()[]_", "é", "—", "\u00a0", "’"]), max_size=16)


@clause("EDIT-FUZZ-02")
@feature("edit.fuzzy")
@given(lines=st.lists(PLAIN, max_size=10), position=st.integers(0, 10), endings=LINE_ENDINGS)
def test_fuzzy_edit_never_changes_bytes_outside(
    tools: Any, ws: Any, lines: list[str], position: int, endings: str
) -> None:
    target_line = "call(“unique-token”)  "
    lines = list(lines)
    lines.insert(min(position, len(lines)), target_line)
    text = endings.join(lines) + endings
    where = ws.subdir()
    target = where.root / "f.txt"
    target.write_bytes(text.encode())
    result = tools.call(
        "edit", file_path=str(target), old_string='call("unique-token")', new_string="done()"
    )
    expect_ok(result)
    assert target.read_bytes() == text.replace("call(“unique-token”)", "done()").encode()
