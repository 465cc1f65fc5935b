"""Assertion helpers for conformance tests: behaviour first, then neutral checks of the text.

Behaviour is judged on the observation (``result.observation``), the bytes on disk and the
process table. The model-facing text is judged only for what a model needs, in a way every
correct presentation satisfies: the data is there in some form and in order; a cut is
announced with the number to continue from in the implementation's own units; an error names
the argument in the implementation's own vocabulary, or the path, or the count. Messages say
what was expected, what was seen, and the call: "expected X, but saw Y [read(path='a.txt')]".
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from _pytest.outcomes import Skipped

from pytest_agenttools.harness.contract import Manifest, ToolResult
from pytest_agenttools.harness.observations import (
    BashObservation,
    EditObservation,
    GlobObservation,
    GrepObservation,
    Observation,
    ReadObservation,
    WriteObservation,
)
from pytest_agenttools.harness.tracebacks import kit_frame

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

ObservationT = TypeVar("ObservationT", bound=Observation)
WORKSPACE_MASK = "<ws>"


# --- preconditions another clause owns -------------------------------------------------------

#: how a blocked test's skip message starts: ``blocked by READ-OFF-01: ...``
BLOCKED_PREFIX = "blocked by "


class Blocked(Skipped):
    """A test did not judge its clause: a precondition that ``owner`` (another clause) owns does
    not hold. Reported as the outcome ``blocked`` with ``blocked_by`` = ``owner``: never a
    failure of the test's clause, never a pass."""

    def __init__(self, owner: str, reason: str) -> None:
        self.owner = owner
        self.reason = reason
        super().__init__(f"{BLOCKED_PREFIX}{owner}: {reason}")


def blocked_by(owner: str, reason: str) -> NoReturn:
    """End the test as not judged: clause ``owner``'s rule, which this test needs, does not hold
    (``reason`` says what was seen)."""
    raise Blocked(owner, reason)


@contextmanager
def precondition(owner: str, what: str = "") -> Iterator[None]:
    """An assertion in this block checks another clause's rule (``owner``): when it fails, the
    test is blocked by ``owner`` instead of failing its own clause.

    ``with precondition("READ-OFF-01", "an offset past the end is refused"): expect_error(r)``
    """
    try:
        yield
    except AssertionError as exc:
        said = " ".join(str(exc).split("\n")[0].split())
        reason = f"{what}: {said}" if what and said else (what or said or "precondition failed")
        raise Blocked(owner, reason[:800]) from None


def _call(result: ToolResult) -> str:
    return f" [{result.call.describe()}]" if result.call else ""


def shown(result: ToolResult, limit: int = 600) -> str:
    text = result.text
    return repr(text if len(text) <= limit else text[: limit // 2] + " ... " + text[-limit // 2 :])


def expect_ok(result: ToolResult, what: str = "") -> ToolResult:
    assert not result.is_error, (
        f"expected success{' (' + what + ')' if what else ''}, but the tool returned an error: "
        f"{shown(result)}{_call(result)}"
    )
    return result


def expect_error(result: ToolResult, *, what: str = "") -> ToolResult:
    """An error result with a text saying something (what it says is judged separately)."""
    assert result.is_error, (
        f"expected an error result{' (' + what + ')' if what else ''}, but isError is false; "
        f"text: {shown(result)}{_call(result)}"
    )
    assert result.text.strip(), (
        f"an error result must say what went wrong, but its text is empty{_call(result)}"
    )
    return result


def observe(result: ToolResult, kind: type[ObservationT]) -> ObservationT:
    """The parsed observation, checked to be of the expected shape."""
    found = result.observation
    assert isinstance(found, kind), f"expected a {kind.__name__}, got {type(found).__name__}"
    return found


def read_obs(result: ToolResult) -> ReadObservation:
    return observe(result, ReadObservation)


def write_obs(result: ToolResult) -> WriteObservation:
    return observe(result, WriteObservation)


def edit_obs(result: ToolResult) -> EditObservation:
    return observe(result, EditObservation)


def grep_obs(result: ToolResult) -> GrepObservation:
    return observe(result, GrepObservation)


def glob_obs(result: ToolResult) -> GlobObservation:
    return observe(result, GlobObservation)


def bash_obs(result: ToolResult) -> BashObservation:
    return observe(result, BashObservation)


# --- neutral checks of the model-facing text ------------------------------------------------


def masked_text(result: ToolResult, *roots: str | os.PathLike[str]) -> str:
    """The result's text with every workspace path replaced, so random names never match."""
    text = result.text
    for root in roots:
        for form in {str(root), os.path.realpath(root)}:
            text = text.replace(form, WORKSPACE_MASK)
    return text


def _number_pattern(number: int) -> re.Pattern[str]:
    # a whole number, not part of a longer one or of a name (1,000 and 1_000 count too)
    digits = f"{number:,}" if number >= 1000 else str(number)
    forms = {str(number), digits, digits.replace(",", "_")}
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\w.,]){'(?:' + alternatives + ')'}(?![\w]|[.,]\d)")


def mentions_number(text: str, number: int) -> bool:
    return bool(_number_pattern(number).search(text))


def expect_number(
    result: ToolResult, number: int, what: str, *roots: str | os.PathLike[str]
) -> None:
    """The text (workspace paths masked) contains ``number`` as a whole number."""
    text = masked_text(result, *roots)
    assert mentions_number(text, number), (
        f"the text should give {what} ({number}) so the model can act on it; saw "
        f"{text[:600]!r}{_call(result)}"
    )


def _squash(text: str) -> str:
    return re.sub(r"[\s_\-`'\"]+", "", text.lower())


def expect_names_argument(
    result: ToolResult, manifest: Manifest, tool: str, *canonical: str
) -> None:
    """The error names one of the arguments, as the implementation calls it (its dialect).

    ``file_path``, ``filePath`` and ``file path`` are the same name; the comparison ignores
    case, spaces, underscores, hyphens and quotes.
    """
    names = [manifest.argument_name(tool, c) for c in canonical]
    text = _squash(result.text)
    assert any(_squash(n) in text for n in names), (
        f"the error should name the argument ({' or '.join(names)}) so the model knows what "
        f"to fix; saw {shown(result)}{_call(result)}"
    )


def path_forms(path: str, cwd: str, root: str | None = None) -> set[str]:
    """Ways a correct tool may print ``path``: absolute, relative to cwd or to the search root."""
    full = path if os.path.isabs(path) else os.path.join(cwd, path)
    full = os.path.normpath(full)
    forms = {full, os.path.realpath(full)}
    for base in {cwd, os.path.realpath(cwd), *(r for r in (root,) if r)}:
        rel = os.path.relpath(full, base)
        if not rel.startswith(".."):
            forms |= {rel, f"./{rel}"}
    return forms


def text_names_path(text: str, path: str, cwd: str, root: str | None = None) -> bool:
    return any(form in text for form in path_forms(path, cwd, root))


def expect_names_path(result: ToolResult, path: str, cwd: str, root: str | None = None) -> None:
    assert text_names_path(result.text, path, cwd, root), (
        f"the text should name {path!r} (absolute, or relative to the working directory or the "
        f"search root); saw {shown(result)}{_call(result)}"
    )


def resolve(path: str, cwd: str) -> str:
    """An observation path made absolute against the call's cwd (observations may be relative)."""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def relative_paths(paths: Iterable[str], cwd: str, root: str | None = None) -> list[str]:
    """Observation paths relative to ``root`` (default: cwd), with ``/`` separators."""
    base = os.path.normpath(root or cwd)
    return [os.path.relpath(resolve(p, cwd), base).replace(os.sep, "/") for p in paths]


def shown_forms(piece: str) -> list[str]:
    """The ways a text can faithfully show ``piece``: as it is, or escaped inside a JSON string.

    A tool that answers with a JSON document (as many MCP servers do) shows a newline as
    ``\\n`` and a quote as ``\\"``; the piece is still there, whole and in order.
    """
    forms = [piece, json.dumps(piece, ensure_ascii=False)[1:-1], json.dumps(piece)[1:-1]]
    return list(dict.fromkeys(forms))


def expect_in_order(result: ToolResult, pieces: Sequence[str], what: str) -> None:
    """Every piece appears in the text, in this order (the layout around them is free).

    A piece may be shown JSON-escaped (``shown_forms``): that is layout, not content.
    """
    text = result.text
    position = 0
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        hits = [(text.find(form, position), form) for form in shown_forms(piece)]
        found, form = min(((at, f) for at, f in hits if at >= 0), default=(-1, piece))
        assert found >= 0, (
            f"the text should show {what}; piece {index + 1} of {len(pieces)} ({piece!r:.120}) "
            f"is missing after position {position}, as it is or JSON-escaped; saw "
            f"{shown(result)}{_call(result)}"
        )
        position = found + len(form)


_COUNT = r"(\d{1,3}(?:[,_]\d{3})+|\d+)(?![\d.,]\d)"
#: "11 bytes", "11-byte", "bytes: 11", "bytes written = 11", bytes="11"
BYTE_COUNT = re.compile(
    rf"(?<![\w.,]){_COUNT}[\s-]*bytes?\b|\bbytes?\b[^\d\n]{{0,24}}?(?<![\w.,]){_COUNT}",
    re.IGNORECASE,
)


def byte_counts(text: str) -> list[int]:
    """Every number the text gives next to the word "byte(s)", in any common wording."""
    return [int((a or b).replace(",", "").replace("_", "")) for a, b in BYTE_COUNT.findall(text)]


def expect_true_byte_count(
    result: ToolResult, size: int, what: str, *roots: str | os.PathLike[str]
) -> None:
    """When the text states a size in bytes (any wording), one such number is ``size``.

    A text that gives no byte count passes: saying nothing is not saying something wrong.
    """
    counts = byte_counts(masked_text(result, *roots))
    assert not counts or size in counts, (
        f"the text gives {what} as {counts} bytes, but it is {size}; saw "
        f"{shown(result)}{_call(result)}"
    )


def apply_unified_patch(old: str, patch: str) -> str:
    """Apply a unified diff to ``old`` (strictly: every context line must match)."""
    old_lines = re.findall(r"[^\n]*\n|[^\n]+$", old)
    out: list[str] = []
    position = 0
    lines = re.findall(r"[^\n]*\n|[^\n]+$", patch)
    i = 0
    hunk = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
    while i < len(lines):
        found = hunk.match(lines[i])
        if not found:
            i += 1
            continue
        start = int(found.group(1))
        count = int(found.group(2)) if found.group(2) is not None else 1
        begin = start - 1 if count else start
        out.extend(old_lines[position:begin])
        position = begin
        i += 1
        last_tag = ""
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            tag, body = line[:1], line[1:]
            if line.startswith("\\"):
                if last_tag in (" ", "+") and out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
                i += 1
                continue
            last_tag = tag
            if tag in (" ", "-"):
                expected = old_lines[position] if position < len(old_lines) else None
                if expected is None or expected.rstrip("\n") != body.rstrip("\n"):
                    raise AssertionError(
                        f"patch context does not match line {position + 1}: "
                        f"patch has {body!r:.80}, file has {expected!r:.80}"
                    )
                if tag == " ":
                    out.append(expected)
                position += 1
            elif tag == "+":
                out.append(body)
            i += 1
    out.extend(old_lines[position:])
    return "".join(out)


def first_difference(a: Sequence[str], b: Sequence[str]) -> int | None:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


# --- text parsing of the reference's layout (legacy) ---------------------------------------
# The suite judged behaviour by parsing the reference's text layout before observations
# existed. These parsers remain only until every suite module judges observations; nothing new
# may use them.

NUMBERED = {
    "arrow": re.compile(r"^ *(\d+)\u2192(.*)$", re.S),
    "tab": re.compile(r"^ *(\d+)\t(.*)$", re.S),
    "pipe": re.compile(r"^ *(\d+) ?\| (.*)$", re.S),
}
NOTICE = re.compile(r"\n*\n\[[^\n]*\]\s*$")
OFFSET_HINT = re.compile(r"offset\s*=\s*(\d+)")


@dataclass(frozen=True)
class ReadPage:
    lines: list[tuple[int, str]]
    notices: str

    @property
    def texts(self) -> list[str]:
        return [text for _, text in self.lines]

    @property
    def numbers(self) -> list[int]:
        return [number for number, _ in self.lines]


def parse_read(text: str, style: str, first_line: int = 1) -> ReadPage:
    notices = ""
    body = text
    match = NOTICE.search(text)
    while match:
        notices = text[match.start() :] + notices
        body = body[: match.start()]
        match = NOTICE.search(body)
    if body == "":
        return ReadPage([], notices.strip())
    raw_lines = body.split("\n")
    if style == "none":
        if len(raw_lines) > 1 and raw_lines[-1] == "":
            raw_lines.pop()
        return ReadPage(list(enumerate(raw_lines, start=first_line)), notices.strip())
    pattern = NUMBERED[style]
    lines = []
    for raw in raw_lines:
        found = pattern.match(raw)
        if not found:
            raise AssertionError(
                f"a read output line does not carry a {style}-style line number: {raw!r:.120}"
            )
        lines.append((int(found.group(1)), found.group(2)))
    return ReadPage(lines, notices.strip())


def continuation_offset(result: ToolResult) -> int | None:
    value = result.details.get("next_offset")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if result.details.get("has_more") is False:
        return None
    found = OFFSET_HINT.findall(result.text[-400:])
    return int(found[-1]) if found else None
