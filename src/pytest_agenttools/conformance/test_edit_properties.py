"""edit: properties over random files (hypothesis).

Files are built line by line with random endings (LF, CRLF, lone CR, mixed), an optional BOM and
an optional final line ending; the spans to edit are marked by characters no filler holds, so
the kit knows where each span lies in the original bytes and computes the expected file itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.edit_checks import (
    BOM,
    expect_edited,
    expect_span_replaced,
    folded_characters,
)
from pytest_agenttools.conformance.strategies import LINE_ENDINGS, SAFE_CHARS, examples
from pytest_agenttools.harness.assertions import expect_ok
from pytest_agenttools.harness.markers import clause, feature

OPEN, CLOSE = "\u27e6", "\u27e7"
FILLER = st.text(
    SAFE_CHARS.filter(lambda c: c not in (OPEN, CLOSE)) | st.sampled_from(["$", "\\", " "]),
    max_size=16,
)
#: pieces of replacement text: `$` and backslash sequences, line breaks, plain text
PIECES = st.sampled_from(
    [*"$&`'\\{}<>g01n \tx", "\n", "$$", "$&", "$'", "$`", "$1", "\\1", "\\g<0>", "${1}", "é"]
)
REPLACEMENT = st.lists(PIECES, max_size=12).map("".join)
FIRST_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class Marked:
    """A generated file: its text, and per marked span its start and end in that text and the
    old_string (in LF form, as a model writes it) that matches it."""

    text: str
    spans: list[tuple[int, int, str]]

    @property
    def ending(self) -> str:
        found = FIRST_BREAK.search(self.text)
        return found.group() if found else "\n"

    def expected(self, replacements: list[str]) -> str:
        out, position = [], 0
        for (start, end, _), new in zip(self.spans, replacements, strict=True):
            out += [self.text[position:start], new.replace("\n", self.ending)]
            position = end
        return "".join([*out, self.text[position:]])


def _joined(lines: list[str], endings: list[str], final: bool) -> tuple[list[str], list[str]]:
    """Endings fixed so that a lone CR never meets the LF of an empty next line (that pair
    would be one CRLF, merging two generated lines), and the last line maybe without one."""
    endings = list(endings)
    for i in range(len(lines) - 1):
        if endings[i] == "\r" and lines[i + 1] == "" and endings[i + 1].startswith("\n"):
            endings[i] = "\r\n"
    if lines and not final:
        endings[-1] = ""
    return lines, endings


@st.composite
def marked_file(draw: st.DrawFn, blocks: int = 1) -> Marked:
    """Filler lines with ``blocks`` marked spans; each span starts at a marker (maybe mid-line)
    and runs over 0-3 further lines, maybe through the line ending after its last line."""
    lines: list[str] = []
    plans: list[tuple[int, int, int, bool]] = []  # first line, column, lines, through the break
    for index in range(blocks):
        lines += draw(st.lists(FILLER, max_size=4))
        head = draw(FILLER)
        body = draw(st.lists(FILLER, max_size=3))
        plans.append((len(lines), len(head), len(body) + 1, draw(st.booleans())))
        lines.append(f"{head}{OPEN}{index}{CLOSE}{draw(FILLER)}")
        lines += body
    lines += draw(st.lists(FILLER, max_size=4))
    endings = [draw(LINE_ENDINGS) for _ in lines]
    lines, endings = _joined(lines, endings, draw(st.booleans()))
    starts: list[int] = []
    position = 0
    for line, ending in zip(lines, endings, strict=True):
        starts.append(position)
        position += len(line) + len(ending)
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=True))
    spans: list[tuple[int, int, str]] = []
    for first, column, count, through in plans:
        last = first + count - 1
        through = through and endings[last] != ""
        start = starts[first] + column
        stop = starts[last] + len(lines[last]) + (len(endings[last]) if through else 0)
        old = "\n".join([lines[first][column:], *lines[first + 1 : last + 1]])
        spans.append((start, stop, old + ("\n" if through else "")))
    return Marked(text, spans)


def put(ws: Workspace, text: str, bom: bool) -> tuple[Workspace, bytes]:
    where = ws.subdir()
    data = (BOM if bom else b"") + text.encode()
    where.put("f.txt", data)
    return where, data


@clause("EDIT-PROP-01")
@settings(max_examples=examples(50))
@given(file=marked_file(), bom=st.booleans(), new=REPLACEMENT)
def test_only_the_span_changes(
    tools: ToolClient, ws: Workspace, file: Marked, bom: bool, new: str
) -> None:
    where, before = put(ws, file.text, bom)
    old = file.spans[0][2]
    result = tools.call("edit", file_path=str(where.file("f.txt")), old_string=old, new_string=new)
    expected = (BOM if bom else b"") + file.expected([new]).encode()
    expect_edited(result, where, "f.txt", expected, replacements=1, before=before, codec="utf-8")


@clause("EDIT-PROP-01")
@feature("edit.multi")
@settings(max_examples=examples(30))
@given(
    file=st.integers(2, 4).flatmap(lambda n: marked_file(blocks=n)),
    bom=st.booleans(),
    news=st.lists(REPLACEMENT, min_size=4, max_size=4),
    order=st.permutations(range(4)),
)
def test_only_the_spans_of_every_edit_change(
    tools: ToolClient, ws: Workspace, file: Marked, bom: bool, news: list[str], order: list[int]
) -> None:
    where, before = put(ws, file.text, bom)
    news = news[: len(file.spans)]
    entries = [
        {"old_string": file.spans[i][2], "new_string": news[i]}
        for i in order
        if i < len(file.spans)
    ]
    result = tools.call("edit", file_path=str(where.file("f.txt")), edits=entries)
    expected = (BOM if bom else b"") + file.expected(news).encode()
    count = len(file.spans)
    expect_edited(
        result, where, "f.txt", expected, replacements=count, before=before, codec="utf-8"
    )


TOKEN = f"{OPEN}R{CLOSE}"


@st.composite
def repeated_token(draw: st.DrawFn) -> tuple[str, int]:
    """Filler lines holding ``TOKEN`` 1-5 times (maybe twice on a line), random endings."""
    lines = draw(st.lists(FILLER, min_size=1, max_size=10))
    count = draw(st.integers(1, 5))
    places = sorted(
        (row, draw(st.integers(0, len(lines[row]))))
        for row in (draw(st.integers(0, len(lines) - 1)) for _ in range(count))
    )
    for row, column in reversed(places):  # right to left: columns of the filler stay valid
        lines[row] = lines[row][:column] + TOKEN + lines[row][column:]
    endings = [draw(LINE_ENDINGS) for _ in lines]
    lines, endings = _joined(lines, endings, draw(st.booleans()))
    return "".join(line + end for line, end in zip(lines, endings, strict=True)), count


@clause("EDIT-RA-03")
@feature("edit.replace_all")
@settings(max_examples=examples(40))
@given(file=repeated_token(), bom=st.booleans(), new=REPLACEMENT)
def test_replace_all_keeps_bom_and_endings_for_any_text(
    tools: ToolClient, ws: Workspace, file: tuple[str, int], bom: bool, new: str
) -> None:
    text, count = file
    where, before = put(ws, text, bom)
    found = FIRST_BREAK.search(text)
    ending = found.group() if found else "\n"
    result = tools.call(
        "edit",
        file_path=str(where.file("f.txt")),
        old_string=TOKEN,
        new_string=new,
        replace_all=True,
    )
    expected = (BOM if bom else b"") + text.replace(TOKEN, new.replace("\n", ending)).encode()
    expect_edited(
        result, where, "f.txt", expected, replacements=count, before=before, codec="utf-8"
    )


@clause("EDIT-LIT-01")
@settings(max_examples=examples(30))
@given(new=REPLACEMENT.filter(lambda s: s != "TARGET"))
def test_random_replacements_are_literal(tools: ToolClient, ws: Workspace, new: str) -> None:
    where, _ = put(ws, "before TARGET after\n", False)
    result = tools.call(
        "edit", file_path=str(where.file("f.txt")), old_string="TARGET", new_string=new
    )
    expected = f"before {new} after\n".encode()
    expect_edited(result, where, "f.txt", expected, replacements=1)


@clause("EDIT-RA-02")
@feature("edit.replace_all")
@settings(max_examples=examples(30))
@given(new=REPLACEMENT.filter(lambda s: s != "T"))
def test_random_replace_all_is_literal(tools: ToolClient, ws: Workspace, new: str) -> None:
    where, _ = put(ws, "T.T\nT\n", False)
    result = tools.call(
        "edit", file_path=str(where.file("f.txt")), old_string="T", new_string=new, replace_all=True
    )
    expected = f"{new}.{new}\n{new}\n".encode()
    expect_edited(result, where, "f.txt", expected, replacements=3)


PLAIN = st.text(st.sampled_from([*"abcxyz019 ,;()[]_é\t", *folded_characters()]), max_size=16)


@st.composite
def fuzzy_target(draw: st.DrawFn) -> tuple[str, str]:
    """(a line that matches ``call("unique-token", x)`` only fuzzily, that old_string): every
    quote, dash and space drawn from the table ``edit.fuzzy_fold``, plus trailing whitespace."""
    quotes = st.sampled_from(folded_characters('"'))
    dash = draw(st.sampled_from(["-", *folded_characters("-")]))
    space = draw(st.sampled_from([" ", *folded_characters(" ")]))
    trailing = draw(st.text(st.sampled_from([" ", "\t", *folded_characters(" ")]), max_size=3))
    line = f"call({draw(quotes)}unique{dash}token{draw(quotes)},{space}x){trailing}"
    return line, 'call("unique-token", x)'


@clause("EDIT-FUZZ-02")
@feature("edit.fuzzy")
@settings(max_examples=examples(40))
@given(
    lines=st.lists(PLAIN, max_size=10),
    position=st.integers(0, 10),
    target=fuzzy_target(),
    endings=st.lists(LINE_ENDINGS, min_size=12, max_size=12),
    new=REPLACEMENT,
)
def test_fuzzy_edit_never_changes_bytes_outside(
    tools: ToolClient,
    ws: Workspace,
    lines: list[str],
    position: int,
    target: tuple[str, str],
    endings: list[str],
    new: str,
) -> None:
    line, old = target
    lines = list(lines)
    lines.insert(min(position, len(lines)), line)
    lines, ends = _joined(lines, endings[: len(lines)], True)
    text = "".join(a + b for a, b in zip(lines, ends, strict=True))
    where, _ = put(ws, text, False)
    result = tools.call("edit", file_path=str(where.file("f.txt")), old_string=old, new_string=new)
    expect_ok(result)
    found = FIRST_BREAK.search(text)
    replacement = new.replace("\n", found.group() if found else "\n")
    expect_span_replaced(text, where.get("f.txt").decode(), old, replacement)
