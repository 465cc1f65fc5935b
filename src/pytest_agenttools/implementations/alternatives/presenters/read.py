"""How each alternative presents `read` results, and what its manifest says about `read`.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

Every style re-renders a text page from its observation, so the lines are exactly what the
reference showed; what changes is the layout, the notices and the words:

- ``tab_absolute`` (Claude Code): ``     1\\tline``, absolute paths, reminders after the content.
- ``header_first`` (Gemini CLI): the truncation notice before the content, 0-based offsets in
  its text, no line numbers; a binary file is a successful answer with a note, not an error.
- ``raw_text`` (pi): no line numbers, ``[Showing lines S-E of N. Use offset=K to continue.]``;
  an offset of 0 or below reads from the start.
- ``renamed_arguments`` (OpenCode): ``00001| line`` inside ``<file>``, and its own argument
  names (filePath, startLine, lineCount, pageRange) in every message.
- ``reworded_errors`` (Codex): the same pages, every error in other words.
- ``char_units``: the text-size cap counted in characters.
- ``tagged`` (Cursor): ``<file path=...>`` around ``L12: text`` lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_agenttools.implementations.alternatives._result import observation as _observation
from pytest_agenttools.implementations.alternatives._result import set_text as _set_text
from pytest_agenttools.implementations.alternatives._result import text_of as _text
from pytest_agenttools.implementations.reference import read as reference_read
from pytest_agenttools.implementations.reference import textcodec
from pytest_agenttools.implementations.reference.context import CallContext

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]
ARGUMENTS = ("path", "offset", "limit", "pages")
SIZE_NOTE = re.compile(r"\((\d+\.\dK(?:B| chars)) limit\)")


# --- reading a reference result -------------------------------------------------------------


def _notes(result: Mapping[str, Any], observation: Mapping[str, Any]) -> list[str]:
    """The reference's notes after the numbered lines, without its paging notice."""
    rows = _text(result).split("\n")
    rest = rows[len(observation.get("lines", [])) :]
    return [row for row in rest if row.strip() and not row.startswith("[Showing lines")]


def _path(result: Mapping[str, Any], arguments: Any, cwd: str) -> str:
    details = result.get("details", {})
    found = details.get("path")
    if isinstance(found, str):
        return found
    raw = arguments.get("path") if isinstance(arguments, Mapping) else None
    return os.path.normpath(os.path.join(cwd, raw)) if isinstance(raw, str) else "the file"


def _relative(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def _argument(result: Mapping[str, Any]) -> str:
    """Which argument an invalid-argument error is about (the first one its text names)."""
    named = result.get("details", {}).get("argument")
    if isinstance(named, str):
        return named
    text = _text(result)
    found = [(m.start(), name) for name in ARGUMENTS if (m := re.search(rf"\b{name}\b", text))]
    return min(found)[1] if found else "path"


def _count_lines(path: str, encoding: str | None) -> int | None:
    """The file's line count as read counts it (LF only), streamed; None if unreadable."""
    codec = {
        "utf-16le-bom": textcodec.UTF16LE,
        "utf-16be-bom": textcodec.UTF16BE,
        "utf-8-bom": textcodec.UTF8_SIG,
        "latin-1": textcodec.LATIN1,
    }.get(encoding or "", textcodec.UTF8)
    try:
        with open(path, "rb") as stream:
            return sum(1 for _ in textcodec.iter_lines(stream, codec, 1))
    except OSError:
        return None


def _is_text_page(result: Mapping[str, Any], observation: Mapping[str, Any] | None) -> bool:
    return (
        not result.get("isError")
        and observation is not None
        and observation.get("kind", "text") == "text"
    )


# --- one style at a time --------------------------------------------------------------------


def _tab_absolute(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """Claude Code: ``cat -n`` numbering with a tab, absolute paths, reminders."""
    observation = _observation(result)
    path = _path(result, arguments, cwd)
    if result.get("isError"):
        return _set_text(result, f"<tool_use_error>{_claude_error(result, path)}</tool_use_error>")
    if not _is_text_page(result, observation):
        return _reword_media(result, observation, path, "tab_absolute")
    assert observation is not None
    lines = observation["lines"]
    if not lines:
        return _set_text(
            result,
            f"<system-reminder>Warning: the file exists but the contents are empty: {path}"
            "</system-reminder>",
        )
    cut = set(observation.get("cut_lines", []))
    start = observation.get("start_line", 1)
    body = [
        f"{n:>6}\t{line}{' … [line truncated]' if n in cut else ''}"
        for n, line in enumerate(lines, start=start)
    ]
    tail = _notes(result, observation)
    if observation.get("truncated"):
        end = start + len(lines) - 1
        tail.append(
            f"<system-reminder>Showing lines {start}-{end} of {path}; the file continues. "
            f"Call Read with offset={observation['next_offset']} for the next part."
            "</system-reminder>"
        )
    return _set_text(result, "\n".join(body) + ("\n\n" + "\n".join(tail) if tail else ""))


def _claude_error(result: Mapping[str, Any], path: str) -> str:
    details = result.get("details", {})
    code = details.get("error")
    if code == "not_found":
        return f"File does not exist: {path}"
    if code == "offset_beyond_end":
        return (
            f"The file {path} is shorter than the provided offset: it has "
            f"{details.get('total_lines')} lines."
        )
    if code == "is_directory":
        return f"EISDIR: illegal operation on a directory, read ({path})"
    if code == "binary_file":
        return f"This tool cannot read binary files. The file appears to be binary: {path}"
    return _text(result)


def _header_first(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """Gemini CLI: status and action before the content, 0-based offsets in its own text."""
    observation = _observation(result)
    path = _path(result, arguments, cwd)
    code = result.get("details", {}).get("error")
    if result.get("isError") and code == "binary_file":
        # Gemini answers a binary file with a note, not an error: nothing of it is shown
        return {
            "content": [{"type": "text", "text": f"Cannot display content of binary file: {path}"}],
            "isError": False,
            "details": {
                "path": path,
                "observation": {"kind": "text", "start_line": 1, "lines": [], "truncated": False},
            },
        }
    if result.get("isError"):
        return _set_text(result, _gemini_error(result, path, arguments))
    if not _is_text_page(result, observation):
        return _reword_media(result, observation, path, "header_first")
    assert observation is not None
    lines = observation["lines"]
    if not lines:
        return _set_text(result, f"The file {path} is empty.")
    cut = set(observation.get("cut_lines", []))
    start = observation.get("start_line", 1)
    body = [
        f"{line}... [truncated]" if n in cut else line for n, line in enumerate(lines, start=start)
    ]
    head: list[str] = []
    if observation.get("truncated"):
        end = start + len(lines) - 1
        head = [
            "IMPORTANT: The file content has been truncated.",
            f"Status: Showing lines {start}-{end}.",
            "Action: To read more of the file, use the 'offset' and 'limit' parameters in a "
            "subsequent 'read_file' call. For example, to read the next section of the file, "
            f"use offset: {observation['next_offset'] - 1}.",
            "",
            "--- FILE CONTENT (truncated) ---",
        ]
    notes = [f"Note: {note.strip('[]')}" for note in _notes(result, observation)]
    if notes:
        head = notes + (["", *head] if head else ["", "--- FILE CONTENT ---"])
    return _set_text(result, "\n".join([*head, *body]))


def _gemini_error(result: Mapping[str, Any], path: str, arguments: Any) -> str:
    details = result.get("details", {})
    code = details.get("error")
    offset = arguments.get("offset") if isinstance(arguments, Mapping) else None
    if code == "not_found":
        return f"File not found: {path}"
    if code == "is_directory":
        return f"Path is a directory, not a file: {path}"
    if code == "offset_beyond_end" and isinstance(offset, int):
        total = details.get("total_lines")
        return (
            f"Offset {offset - 1} is beyond the end of {path}, which has {total} lines "
            f"(valid offsets: 0 to {int(total or 1) - 1})."
        )
    if code == "invalid_argument" and "offset must be 1 or more" in _text(result):
        return "The 'offset' parameter must be a non-negative number (lines count from 0)."
    return _text(result)


def _raw_text(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """pi: the lines as they are, and notices that say how many lines the file has."""
    observation = _observation(result)
    path = _path(result, arguments, cwd)
    if result.get("isError"):
        return _set_text(result, _pi_error(result, path))
    if not _is_text_page(result, observation):
        return result
    assert observation is not None
    lines = list(observation["lines"])
    if not lines:
        return _set_text(result, "(empty file)")
    cut = set(observation.get("cut_lines", []))
    start = observation.get("start_line", 1)
    body = [
        f"{line}... (line truncated)" if n in cut else line
        for n, line in enumerate(lines, start=start)
    ]
    tail = _notes(result, observation)
    if observation.get("truncated"):
        end = start + len(lines) - 1
        following = observation["next_offset"]
        total = _count_lines(path, observation.get("encoding"))
        if observation.get("truncated_by") == "limit" and total is not None:
            tail.append(f"[{total - end} more lines in file. Use offset={following} to continue.]")
        else:
            cap = SIZE_NOTE.search(_text(result))
            size = f" ({cap.group(1)} limit)" if cap else ""
            of = f" of {total}" if total is not None else ""
            tail.append(
                f"[Showing lines {start}-{end}{of}{size}. Use offset={following} to continue.]"
            )
    return _set_text(result, "\n".join(body) + ("\n\n" + "\n".join(tail) if tail else ""))


def _pi_error(result: Mapping[str, Any], path: str) -> str:
    details = result.get("details", {})
    code = details.get("error")
    if code == "not_found":
        return f"ENOENT: no such file or directory, access '{path}'"
    if code == "is_directory":
        return f"EISDIR: illegal operation on a directory, read '{path}'"
    return _text(result)


def _clamped_run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    """pi reads an offset of 0 or below as 1 (READ-ARG-04 allows it)."""
    if isinstance(arguments, Mapping):
        offset = arguments.get("offset")
        if isinstance(offset, int) and not isinstance(offset, bool) and offset < 1:
            arguments = {**arguments, "offset": 1}
    return reference_read.run(arguments, ctx)


RENAMED = {"path": "filePath", "offset": "startLine", "limit": "lineCount", "pages": "pageRange"}


def _renamed(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """OpenCode: ``00001| line`` in a ``<file>`` block, and its own argument names."""
    observation = _observation(result)
    if result.get("isError"):
        text = _text(result).replace("an offset", "a offset")
        for canonical, own in RENAMED.items():
            text = re.sub(rf"(?<![\w/.]){canonical}(?![\w/])", own, text)
        return _set_text(result, text)
    if not _is_text_page(result, observation):
        return result
    assert observation is not None
    lines = observation["lines"]
    if not lines:
        return _set_text(result, "<file>\n(File is empty)\n</file>")
    start = observation.get("start_line", 1)
    body = [f"{n:05d}| {line}" for n, line in enumerate(lines, start=start)]
    tail = [re.sub(r"\boffset=", "startLine=", note) for note in _notes(result, observation)]
    if observation.get("truncated"):
        tail.append(
            f"(File has more lines. Use startLine={observation['next_offset']} to read on.)"
        )
    return _set_text(
        result, "\n".join(["<file>", *body, *(["", *tail] if tail else []), "</file>"])
    )


def _reworded(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """Codex: the same pages; every error said another way."""
    if not result.get("isError"):
        return result
    details = result.get("details", {})
    code = details.get("error")
    path = _path(result, arguments, cwd)
    offset = arguments.get("offset") if isinstance(arguments, Mapping) else None
    if code == "invalid_argument":
        reason = _text(result)
        text = f"read rejected the call: `{_argument(result)}` is not acceptable here ({reason})"
    elif code == "not_found":
        text = f"{path}: No such file or directory (os error 2)"
    elif code == "offset_beyond_end":
        text = (
            f"requested start line {offset} but {path} only has {details.get('total_lines')} lines"
        )
    elif code == "is_directory":
        text = f"{path}: Is a directory (os error 21)"
    elif code == "binary_file":
        text = f"refusing to print {path}: the content is not text"
    elif code in ("device", "not_regular_file"):
        text = f"refusing to open {path}: not a plain file"
    elif code == "pages_required":
        text = (
            f"{path} is {details.get('pages_total')} pages long; choose a range with the "
            "`pages` argument"
        )
    else:
        body = _text(result)
        text = f"read failed: {body[:1].lower()}{body[1:]}"
    return _set_text(result, text)


def _tagged(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    """Cursor: results in tags, lines as ``L12: text``."""
    observation = _observation(result)
    if result.get("isError"):
        return _set_text(result, f"<error>{_text(result)}</error>")
    path = _path(result, arguments, cwd)
    shown_path = _relative(path, cwd)
    if not _is_text_page(result, observation):
        return _reword_media(result, observation, shown_path, "tagged")
    assert observation is not None
    lines = observation["lines"]
    if not lines:
        return _set_text(result, f'<file path="{shown_path}" lines="0">(empty)</file>')
    start = observation.get("start_line", 1)
    cut = set(observation.get("cut_lines", []))
    body = [
        f"L{n}: {line}" + (" <cut/>" if n in cut else "")
        for n, line in enumerate(lines, start=start)
    ]
    out = [f'<file path="{shown_path}">', *body, "</file>"]
    out += [f"<note>{note.strip('[]')}</note>" for note in _notes(result, observation)]
    if observation.get("truncated"):
        following = observation["next_offset"]
        out.append(
            f'<truncated next_offset="{following}">read again with offset={following}</truncated>'
        )
    return _set_text(result, "\n".join(out))


def _reword_media(
    result: dict[str, Any], observation: Mapping[str, Any] | None, path: str, style: str
) -> dict[str, Any]:
    """PDF pages, images and notebooks in the style's own frame (the content stays)."""
    kind = (observation or {}).get("kind")
    text = _text(result)
    if kind == "pdf":
        if style == "tagged":
            text = re.sub(r"== Page (\d+) ==\n", r'<page number="\1">\n', text)
        elif style == "header_first":
            text = re.sub(r"== Page (\d+) ==", r"--- Page \1 ---", text)
        elif style == "tab_absolute":
            text = re.sub(r"== Page (\d+) ==", rf"[{path}, page \1]", text)
        return _set_text(result, text)
    if kind == "image":
        seen = observation or {}
        mime = seen.get("mime_type", "image")
        label = {
            "tagged": f'<image path="{path}" type="{mime}"/>',
            "header_first": f"Read image file: {path} ({mime})",
            "tab_absolute": f"[Image: {path}, {mime}]",
        }.get(style)
        if label is None:
            return result
        if seen.get("converted_from"):  # READ-IMG-05: the type converted from is named
            label += f" (converted from {seen['converted_from']})"
        if seen.get("resized"):  # READ-IMG-04: the note stays, in the style's own words
            was = f"{seen['original_width']}x{seen['original_height']}"
            now = f"{seen['width']}x{seen['height']}"
            label += {
                "tagged": f'\n<resized from="{was}" to="{now}"/>',
                "header_first": f"\nScaled down from {was} to {now} pixels.",
                "tab_absolute": f"\t(resized {was} -> {now})",
            }[style]
        return _set_text(result, label)
    return result
