"""The ``grep`` tool: search file contents with ripgrep, bounded, ordered, and never secrets.

Three output modes: ``files_with_matches`` (default; one path per line, newest first),
``content`` (``path:N:text`` for matching lines, ``path-N-text`` for context lines) and
``count`` (``path:N`` matches per file). Paths in the text are relative to the searched
directory, with ``/`` separators; ``details.observation`` carries the same results as data
(paths relative to the call's ``cwd``, or absolute outside it). Results are collected in full,
ordered, then paged with ``offset``/``limit``.

Every system operation goes through the operations port (``search_ops.GrepOps``).
"""

from __future__ import annotations

import bisect
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_agenttools.implementations.reference import (
    ripgrep,
    search_input,
    search_ops,
    search_root,
)
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.results import ToolError, text_result
from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.search_paging import (
    Page,
    check_offset_limit,
    decoded_name,
    observed_path,
    page_of,
    shown_name,
)

FEATURES = (
    "grep.content",
    "grep.context",
    "grep.count",
    "grep.default_excludes",
    "grep.gitignore",
    "grep.gitignore_outside_git",
    "grep.literal",
)
LIMITS: dict[str, int | float] = {
    "grep.max_results": 100,
    "grep.max_line_chars": 2000,
    "grep.timeout_s": 30.0,
    "grep.max_output_bytes": 8 * 1024 * 1024,
    "grep.max_filesize": 1024 * 1024,
}
OPS = GrepOps()
PARAMS = (
    Param("pattern", str, required=True),
    Param("path", str),
    Param("glob", (str, list)),
    Param("output_mode", str),
    Param("literal", bool),
    Param("ignore_case", bool),
    Param("context", int),
    Param("offset", int),
    Param("limit", int),
)
MODES = ("files_with_matches", "content", "count")
LINE_CUT_SUFFIX = "... (line truncated)"  # GREP-PRES-04: a cut line says so in the text
CONTENT_LINE = re.compile(rb"^(\d+)([:-])(.*)$", re.S)
REGEX_ERROR = ("regex parse error", "error parsing", "regex could not be compiled")
TOO_COMPLEX = ("exceeds size limit", "memory allocation")
BINARY_MATCH = b"binary file matches"
#: A context wider than this shows the same lines as this (no searchable file has more).
MAX_CONTEXT = 10**9
#: Records parsed between two looks at the cancel switch.
CANCEL_EVERY = 4096
#: ROBUST-EXTREME-01: the context lines one page shows at most, in lines and in characters. A
#: page of results is capped, but a wide context around them is not: `context` 10^12 around
#: 100 matches would show the whole file. Lines nearest a match are kept first.
MAX_CONTEXT_LINES = 2000
MAX_CONTEXT_CHARS = 256 * 1024


@dataclass
class Found:
    """One page of results: the text lines, the observation's entries, and notes."""

    lines: list[str]
    page: Page
    observed: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("grep", PARAMS, arguments)  # GREP-ARG-01
    ops: GrepOps = ctx.ops_for("grep", OPS)
    pattern = _pattern(args["pattern"], ops)
    mode = args.get("output_mode", "files_with_matches")
    if mode not in MODES:
        raise ToolError(
            "invalid_argument",
            f"grep: output_mode must be one of {', '.join(MODES)}, got {mode!r:.60}.",
        )
    context = args.get("context", 0)
    if context < 0:
        raise ToolError("invalid_argument", f"grep: context must be 0 or more, got {context}.")
    context = min(context, MAX_CONTEXT)  # GREP-INPUT-01: 10^12 shows what 10^9 shows
    offset, limit = check_offset_limit(args, "grep")
    user_globs = _user_globs(args.get("glob"), ops)
    root = ops.resolve_root(args.get("path"), ctx.cwd, ctx.env, "grep")
    if root.sensitive:  # GREP-SENS-04: the exclusions match below a root, never the root
        return search_root.sensitive_result(
            root, "No matches", mode=mode, observation=_observation(mode, Page(0, 0, 0, None))
        )
    limits = ctx.limits
    if root.target is not None and not ops.named_file(root, limits["grep.max_filesize"]):
        return _result(
            Found([], Page(0, 0, 0, None), {}), mode, root.path, pattern, ripgrep.RgRun(b"", "", 0)
        )
    with ops.pattern_arguments(pattern) as pattern_args:
        argv = [
            ops.rg(ctx.services),
            *ops.base_flags(),
            f"--max-filesize={limits['grep.max_filesize']}",  # GREP-SIZE-01
            *_mode_flags(mode, context),
        ]
        if args.get("literal"):
            argv.append("--fixed-strings")  # GREP-LIT-01
        if args.get("ignore_case"):
            argv.append("--ignore-case")  # GREP-CASE-01
        argv += pattern_args
        inside = ops.inside_default_excluded(root.directory, ctx.cwd)
        argv += ops.selection(user_globs, default_dirs=not inside)  # GREP-EXCL-01
        argv.append("--")
        if root.target is not None:
            argv.append(root.target)
        found = ops.run(
            argv,
            root.directory,
            timeout=limits["grep.timeout_s"],
            max_bytes=limits["grep.max_output_bytes"],
            cancel=ctx.cancel,
            env=ops.engine_env(ctx.env),
        )
    _check_run(found, pattern, limits["grep.timeout_s"])
    keep = ops.path_filter(user_globs) if root.target is None else None
    where = _Where(root.directory, ctx.cwd, ctx.cancel)
    cap = limits["grep.max_results"]
    if mode == "files_with_matches":
        result = _files(found, where, offset, limit, cap, keep, ops)
    elif mode == "count":
        result = _count(found, where, offset, limit, cap, keep)
    else:
        result = _content(found, where, offset, limit, cap, context, limits, keep, ops)
    notes = [search_ops.too_deep_note(found, root.path)]
    if not result.lines and root.target is None and not found.capped:
        notes.append(_skipped_note(ops, argv, root.directory, user_globs, ctx, inside))
    return _result(result, mode, root.path, pattern, found, [n for n in notes if n])


def _skipped_note(
    ops: GrepOps,
    argv: list[str],
    directory: str,
    user_globs: list[str],
    ctx: CallContext,
    inside: bool,
) -> str:
    """GREP-SIZE-01 in a directory: a search that found nothing says which files it skipped for
    their size, so "No matches" is not taken for "not in any file"."""
    cap = ctx.limits["grep.max_filesize"]
    listing = [argv[0], "--files", *ops.base_flags(), "--null"]
    listing += ops.selection(user_globs, default_dirs=not inside)
    count, names = ops.oversized(
        listing,
        directory,
        cap,
        timeout=ctx.limits["grep.timeout_s"],
        cancel=ctx.cancel,
        env=ops.engine_env(ctx.env),
        keep=ops.path_filter(user_globs),
    )
    if not count:
        return ""
    shown = ", ".join(names) + (" ..." if count > len(names) else "")
    return (
        f"[{count} file(s) larger than {cap} bytes (grep.max_filesize) were not searched: "
        f"{shown}. Search one of them by passing it as path, or read it in pages with read.]"
    )


def _pattern(raw: str, ops: GrepOps) -> str:
    if raw == "":
        raise ToolError(
            "invalid_argument", "grep: pattern is empty. Pass the text or regex to search for."
        )
    ops.check_text(
        raw,
        "grep",
        "pattern",
        max_chars=search_input.MAX_PATTERN_CHARS,
        what="patterns",
    )
    if "\n" in raw or "\r" in raw:
        raise ToolError(
            "invalid_argument",
            "grep: pattern contains a line break; grep matches within single lines. Search for "
            "one line of the text (or a part of it) at a time.",
        )
    return raw


def _user_globs(value: str | list[Any] | None, ops: GrepOps) -> list[str]:
    if value is None:
        return []
    globs = [value] if isinstance(value, str) else value
    if len(globs) > search_input.MAX_GLOBS:
        raise ToolError(
            "invalid_argument",
            f"grep: glob lists {len(globs)} patterns; pass at most {search_input.MAX_GLOBS}.",
        )
    for glob in globs:
        if not isinstance(glob, str) or not glob.strip():
            raise ToolError(
                "invalid_argument",
                f"grep: glob must be a non-empty string or a list of them, got {glob!r:.40}.",
            )
        ops.check_text(
            glob, "grep", "glob", max_chars=search_input.MAX_GLOB_CHARS, what="glob patterns"
        )
    return [g + "**" if g.endswith("/") else g for g in globs]  # a directory: all below it


def _mode_flags(mode: str, context: int) -> list[str]:
    if mode == "files_with_matches":
        return ["--files-with-matches", "--null"]
    if mode == "count":
        return ["--count-matches", "--with-filename", "--null"]  # GREP-MODE-03
    flags = ["--line-number", "--with-filename", "--null", "--no-heading"]  # GREP-MODE-02
    if context:
        flags.append(f"--context={context}")  # GREP-CTX-01
    return flags


def _check_run(found: ripgrep.RgRun, pattern: str, timeout: float) -> None:
    if found.cancelled:
        raise ToolError("aborted", "grep was cancelled before rg finished.")
    if found.timed_out:  # GREP-TIME-01
        raise ToolError(
            "timeout",
            f"grep timed out after {timeout:g} seconds and rg was stopped. Narrow the search: "
            "a smaller path, a glob such as '*.py', or a more specific pattern.",
        )
    message = found.stderr.strip()
    if any(marker in message for marker in TOO_COMPLEX) or (
        found.returncode is not None and found.returncode < 0 and not found.capped
    ):
        raise ToolError(
            "invalid_regex",
            "The pattern is too complex for the search engine (it ran out of room compiling "
            "it). Use a simpler pattern, fewer repetitions, or literal=true to search for the "
            "text as written.",
        )
    if found.returncode == 2 and message:
        if "parsing glob" in message and not found.stdout:
            raise ToolError(
                "invalid_argument",
                f"grep: a glob pattern is not valid: {search_input.glob_error(message)}. Check "
                "its [...] classes and {...} braces.",
            )
        if any(marker in message for marker in REGEX_ERROR):  # GREP-REGEX-01
            reasons = [
                line[6:].strip() for line in message.splitlines() if line.startswith("error:")
            ]
            detail = "; ".join(reasons) or " ".join(message.split())
            raise ToolError(
                "invalid_regex",
                f"Invalid regular expression {_quoted(pattern)}: {detail[:300]}. Escape the "
                "special characters (for example \\( \\[ \\. \\*), or pass literal=true to "
                "search for the text exactly as written.",
            )
        if not found.stdout:
            raise ToolError("rg_failed", f"rg failed: {message[:500]}")


def _quoted(pattern: str, limit: int = 200) -> str:
    shown = repr(pattern)
    return shown if len(shown) <= limit else shown[:limit] + f"... ({len(pattern):,} characters)"


@dataclass(frozen=True)
class _Where:
    """Where rg ran and for whom: turns rg's names into text and observation paths."""

    directory: str
    cwd: str
    cancel: threading.Event

    def observed(self, name: bytes) -> str:
        return observed_path(self.directory, decoded_name(name), self.cwd)

    def check_cancel(self, index: int) -> None:
        if index % CANCEL_EVERY == 0 and self.cancel.is_set():
            raise ToolError("aborted", "grep was cancelled while it sorted the results.")


def _files(
    found: ripgrep.RgRun,
    where: _Where,
    offset: int,
    limit: int | None,
    cap: int,
    keep: Callable[[bytes], bool] | None,
    ops: GrepOps,
) -> Found:
    """GREP-MODE-01: each file once; GREP-ORDER-01: newest first, ties by path."""
    names = found.records(b"\0")
    if keep is not None:
        names = [name for name in names if keep(name)]
    names = ops.newest_first(os.fsencode(where.directory), names)
    chosen, page = page_of(names, offset, limit, cap)  # GREP-CAP-01, GREP-PAGE-01
    return Found(
        [shown_name(name) for name in chosen],
        page,
        {"files": [where.observed(name) for name in chosen]},
    )


def _count(
    found: ripgrep.RgRun,
    where: _Where,
    offset: int,
    limit: int | None,
    cap: int,
    keep: Callable[[bytes], bool] | None,
) -> Found:
    counts = [c for c in _counts(_whole_names(found.records(b"\n"))) if keep is None or keep(c[0])]
    chosen, page = page_of(counts, offset, limit, cap)
    return Found(
        [f"{shown_name(name)}:{n}" for name, n in chosen],
        page,
        {"counts": [{"path": where.observed(name), "count": n} for name, n in chosen]},
        {"total_matches": sum(n for _, n in counts)},
    )


def _whole_names(records: Sequence[bytes]) -> list[bytes]:
    """rg's ``name NUL rest`` records, split at LF, with a name that holds an LF put back
    together: the pieces before the piece with the NUL (or with rg's binary-file note) belong
    to its name. Split as they come, a file named ``x\nb.txt`` is reported as ``b.txt``, and
    a name can then pass for another file's match."""
    whole: list[bytes] = []
    pending: list[bytes] = []
    for record in records:
        if b"\0" in record or BINARY_MATCH in record:
            whole.append(b"\n".join([*pending, record]))
            pending = []
        elif record == b"--":  # a group separator of context mode
            whole += [*pending, record]
            pending = []
        else:
            pending.append(record)
    return whole


def _counts(records: Sequence[bytes]) -> list[tuple[bytes, int]]:
    counts = []
    for record in records:
        name, sep, number = record.rpartition(b"\0")
        if sep and number.strip().isdigit():
            counts.append((name, int(number)))
    return sorted(counts)


def _cut(text: str, max_chars: int) -> tuple[str, bool]:
    """GREP-LINE-01: the first ``max_chars`` characters of a long line, and that it was cut."""
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars], True


def _content(
    found: ripgrep.RgRun,
    where: _Where,
    offset: int,
    limit: int | None,
    cap: int,
    context: int,
    limits: Any,
    keep: Callable[[bytes], bool] | None,
    ops: GrepOps,
) -> Found:
    # ROBUST-EXTREME-01, ROBUST-CANCEL-01: context windows are found by bisection, never by
    # walking a range as large as `context`, and the loop stops on cancel
    """Matching lines as results; context lines come along with the matches they surround."""
    files: dict[bytes, dict[int, tuple[bool, bytes]]] = {}
    binary: list[bytes] = []
    for index, record in enumerate(_whole_names(found.records(b"\n"))):
        where.check_cancel(index)
        name, sep, rest = record.partition(b"\0")
        if not sep:
            if BINARY_MATCH in record:  # a file named by path that holds NUL bytes
                binary.append(record.rpartition(b": ")[0])  # the name may hold ": "
            continue  # or a "--" group separator
        if keep is not None and not keep(name):
            continue  # a path the user's globs do not select
        parsed = CONTENT_LINE.match(rest)
        if parsed:
            number, kind, text = int(parsed.group(1)), parsed.group(2), parsed.group(3)
            files.setdefault(name, {})[number] = (kind == b":", text)
    matches = [
        (name, number)
        for name in sorted(files)
        for number, (is_match, _) in sorted(files[name].items())
        if is_match
    ]
    chosen, page = page_of(matches, offset, limit, cap)
    max_chars = limits["grep.max_line_chars"]
    numbers = {name: sorted(lines) for name, lines in files.items()}
    shown: dict[bytes, set[int]] = {}
    for name, number in chosen:
        shown.setdefault(name, set()).add(number)
    context_cut = _add_context(shown, chosen, numbers, files, context, max_chars, ops, where)
    picked = set(chosen)
    lines: list[str] = []
    observed: list[dict[str, Any]] = []
    cut_count = 0
    for name in sorted(shown):
        display = shown_name(name)
        path = where.observed(name)
        previous: int | None = None
        for number in sorted(shown[name]):
            if context and lines and (previous is None or number != previous + 1):
                lines.append("--")
            _, raw = files[name][number]
            text, cut = _cut(raw.decode("utf-8", "replace"), max_chars)
            cut_count += cut
            is_match = (name, number) in picked
            mark = ":" if is_match else "-"
            lines.append(f"{display}{mark}{number}{mark}{text}{LINE_CUT_SUFFIX if cut else ''}")
            observed.append(
                {"path": path, "line": number, "text": text, "match": is_match, "cut": cut}
            )
            previous = number
    extra: dict[str, Any] = {}
    if cut_count:
        extra["line_truncations"] = cut_count
        extra["note"] = (
            f"[{cut_count} line(s) longer than {max_chars} characters were cut; read the file "
            "to see them whole.]"
        )
    if binary and not matches:
        extra["binary_matches"] = [decoded_name(name) for name in binary]
        extra["note"] = (
            f"[{shown_name(binary[0])} is a binary file: it matches, but its lines are not shown "
            "as text.]"
        )
    if context_cut:
        extra["context_cut"] = True
        extra["context_note"] = (
            f"[Context lines were cut at {MAX_CONTEXT_LINES} lines or {MAX_CONTEXT_CHARS} "
            "characters for this page; the lines nearest each match are shown. Ask for a "
            "smaller context or fewer results per page to see them all.]"
        )
    return Found(lines, page, {"lines": observed}, extra)


def _add_context(
    shown: dict[bytes, set[int]],
    chosen: Sequence[tuple[bytes, int]],
    numbers: Mapping[bytes, Sequence[int]],
    files: Mapping[bytes, Mapping[int, tuple[bool, bytes]]],
    context: int,
    max_chars: int,
    ops: GrepOps,
    where: _Where,
) -> bool:
    """Add the context lines of the chosen matches to ``shown`` within MAX_CONTEXT_LINES and
    MAX_CONTEXT_CHARS for the page, one line further from every match at a time (so each match
    keeps the same reach); True when some were left out."""
    if not context:
        return False
    windows = []
    for index, (name, number) in enumerate(chosen):
        where.check_cancel(index)
        around = ops.window(numbers[name], number, context, where.cancel)
        windows.append((name, around, bisect.bisect_left(around, number)))
    lines_left, chars_left = MAX_CONTEXT_LINES, MAX_CONTEXT_CHARS
    step = 0
    while True:
        step += 1
        where.check_cancel(step)
        reached = False
        for name, around, at in windows:
            for pos in (at - step, at + step):
                if not 0 <= pos < len(around):
                    continue
                reached = True
                if around[pos] in shown[name]:
                    continue
                cost = min(len(files[name][around[pos]][1]), max_chars) + 1
                if lines_left < 1 or cost > chars_left:
                    return True
                shown[name].add(around[pos])
                lines_left, chars_left = lines_left - 1, chars_left - cost
        if not reached:
            return False


def _observation(mode: str, page: Page, **entries: Any) -> dict[str, Any]:
    """``details.observation`` (GrepObservation): the shown results as data."""
    return {
        "mode": mode,
        "files": entries.get("files", []),
        "lines": entries.get("lines", []),
        "counts": entries.get("counts", []),
        "truncated": bool(entries.get("truncated")) or page.next_offset is not None,
        "next_offset": page.next_offset,
        "total": page.total,
    }


def _result(
    found_page: Found,
    mode: str,
    root: str,
    pattern: str,
    found: ripgrep.RgRun,
    more_notes: Sequence[str] = (),
) -> dict[str, Any]:
    lines, page, extra = found_page.lines, found_page.page, dict(found_page.extra)
    note = extra.pop("note", None)
    context_note = extra.pop("context_note", None)
    details: dict[str, Any] = {"mode": mode, "root": root, **page.details(), **extra}
    notes: list[str] = [n for n in (note, context_note, *more_notes) if n]
    if found.too_deep:
        details["too_deep"] = found.too_deep
    if found.capped:  # GREP-OUT-01: the results are incomplete, and the text says so
        details["output_capped"] = True
        notes.append(
            "[rg's output reached its size cap, so these results are incomplete and the total is "
            "a lower bound. Narrow the search with path, glob or a more specific pattern.]"
        )
    notice = page.notice("matches" if mode == "content" else "files")
    if notice:
        notes.append(notice)
    if lines:  # GREP-PRES-01, and the layout GREP-GOLD-01 pins
        text = "\n".join(lines)
    elif "binary_matches" in extra:
        text = ""
    else:  # GREP-NONE-01
        text = f"No matches found for pattern {_quoted(pattern)} in {root}."
    if mode == "count" and lines:
        text += f"\n\n[{details['total_matches']} match(es) in {page.total} file(s).]"
    if notes:
        text = (text + "\n\n" if text else "") + "\n".join(notes)
    details["observation"] = _observation(mode, page, truncated=found.capped, **found_page.observed)
    return text_result(text, **details)


#: the tools of this module, as the toolbox reads them
TOOLS = (ToolDefinition("grep", run, features=FEATURES, limits=LIMITS, ops=OPS),)
