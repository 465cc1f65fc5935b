"""The ``grep`` tool: search file contents with ripgrep, bounded, ordered, and never secrets.

Three output modes: ``files_with_matches`` (default; one path per line, newest first),
``content`` (``path:N:text`` for matching lines, ``path-N-text`` for context lines) and
``count`` (``path:N`` matches per file). Paths are relative to the searched directory, with
``/`` separators. Results are collected in full, ordered, then paged with ``offset``/``limit``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from . import ripgrep, search_filters, search_root
from .arguments import Param, check
from .context import CallContext
from .results import ToolError, text_result
from .search_paging import Page, check_offset_limit, newest_first, page_of, shown_name

FEATURES = (
    "grep.content",
    "grep.context",
    "grep.count",
    "grep.default_excludes",
    "grep.gitignore",
    "grep.literal",
)
LIMITS: dict[str, int | float] = {
    "grep.max_results": 100,
    "grep.max_line_chars": 2000,
    "grep.timeout_s": 30.0,
    "grep.max_output_bytes": 8 * 1024 * 1024,
    "grep.max_filesize": 1024 * 1024,
}
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
LINE_CUT_SUFFIX = "... (line truncated)"
CONTENT_LINE = re.compile(rb"^(\d+)([:-])(.*)$", re.S)
REGEX_ERROR = ("regex parse error", "error parsing", "regex could not be compiled")


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("grep", PARAMS, arguments)
    pattern = args["pattern"]
    if pattern == "":
        raise ToolError(
            "invalid_argument", "grep: pattern is empty. Pass the text or regex to search for."
        )
    mode = args.get("output_mode", "files_with_matches")
    if mode not in MODES:
        raise ToolError(
            "invalid_argument",
            f"grep: output_mode must be one of {', '.join(MODES)}, got {mode!r}.",
        )
    context = args.get("context", 0)
    if context < 0:
        raise ToolError("invalid_argument", f"grep: context must be 0 or more, got {context}.")
    offset, limit = check_offset_limit(args, "grep")
    user_globs = _user_globs(args.get("glob"))
    root = search_root.resolve(args.get("path"), ctx.cwd, ctx.env, "grep")
    if root.sensitive:
        return search_root.sensitive_result(root, "No matches", mode=mode)
    limits = ctx.limits
    argv = [
        ripgrep.rg_path(ctx.services),
        *ripgrep.BASE_FLAGS,
        f"--max-filesize={limits['grep.max_filesize']}",
        *_mode_flags(mode, context),
    ]
    if args.get("literal"):
        argv.append("--fixed-strings")
    if args.get("ignore_case"):
        argv.append("--ignore-case")
    argv.append(f"--regexp={pattern}")
    inside = search_filters.inside_default_excluded(root.directory, ctx.cwd)
    argv += search_filters.glob_arguments(user_globs, default_dirs=not inside)
    argv.append("--")
    if root.target is not None:
        argv.append(root.target)
    found = ripgrep.run(
        argv,
        root.directory,
        timeout=limits["grep.timeout_s"],
        max_bytes=limits["grep.max_output_bytes"],
        cancel=ctx.cancel,
    )
    _check_run(found, pattern, limits["grep.timeout_s"])
    cap = limits["grep.max_results"]
    base = os.fsencode(root.directory)
    keep = search_filters.path_filter(user_globs) if root.target is None else None
    extra: dict[str, Any] = {}
    if mode == "files_with_matches":
        names = found.records(b"\0")
        if keep is not None:
            names = [name for name in names if keep(name)]
        names = newest_first(base, names)
        chosen, page = page_of(names, offset, limit, cap)
        lines = [shown_name(name) for name in chosen]
        unit = "files"
    elif mode == "count":
        counts = [c for c in _counts(found.records(b"\n")) if keep is None or keep(c[0])]
        chosen_counts, page = page_of(counts, offset, limit, cap)
        lines = [f"{shown_name(name)}:{n}" for name, n in chosen_counts]
        unit = "files"
        extra["total_matches"] = sum(n for _, n in counts)
    else:
        lines, page, cut = _content(found.records(b"\n"), offset, limit, cap, context, limits, keep)
        unit = "matches"
        if cut:
            extra["line_truncations"] = cut
            extra["note"] = (
                f"[{cut} line(s) longer than {limits['grep.max_line_chars']} characters were "
                "cut; read the file to see them whole.]"
            )
    return _result(lines, page, unit, mode, root.path, pattern, found, extra)


def _user_globs(value: str | list[Any] | None) -> list[str]:
    if value is None:
        return []
    globs = [value] if isinstance(value, str) else value
    for glob in globs:
        if not isinstance(glob, str) or not glob.strip():
            raise ToolError(
                "invalid_argument",
                f"grep: glob must be a non-empty string or a list of them, got {glob!r:.40}.",
            )
    return [g + "**" if g.endswith("/") else g for g in globs]  # a directory: all below it


def _mode_flags(mode: str, context: int) -> list[str]:
    if mode == "files_with_matches":
        return ["--files-with-matches", "--null"]
    if mode == "count":
        return ["--count-matches", "--with-filename", "--null"]
    flags = ["--line-number", "--with-filename", "--null", "--no-heading"]
    if context:
        flags.append(f"--context={context}")
    return flags


def _check_run(found: ripgrep.RgRun, pattern: str, timeout: float) -> None:
    if found.cancelled:
        raise ToolError("aborted", "grep was cancelled before rg finished.")
    if found.timed_out:
        raise ToolError(
            "timeout",
            f"grep timed out after {timeout:g} seconds and rg was stopped. Narrow the search: "
            "a smaller path, a glob such as '*.py', or a more specific pattern.",
        )
    if found.returncode == 2 and found.stderr.strip():
        message = found.stderr.strip()
        if any(marker in message for marker in REGEX_ERROR):
            reasons = [
                line[6:].strip() for line in message.splitlines() if line.startswith("error:")
            ]
            detail = "; ".join(reasons) or " ".join(message.split())
            raise ToolError(
                "invalid_regex",
                f"Invalid regular expression {pattern!r}: {detail[:300]}. Escape the special "
                "characters (for example \\( \\[ \\. \\*), or pass literal=true to search for "
                "the text exactly as written.",
            )
        if not found.stdout:
            raise ToolError("rg_failed", f"rg failed: {message[:500]}")


def _counts(records: Sequence[bytes]) -> list[tuple[bytes, int]]:
    counts = []
    for record in records:
        name, sep, number = record.rpartition(b"\0")
        if sep and number.strip().isdigit():
            counts.append((name, int(number)))
    return sorted(counts)


def _cut(text: str, max_chars: int) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars] + LINE_CUT_SUFFIX, True


def _content(
    records: Sequence[bytes],
    offset: int,
    limit: int | None,
    cap: int,
    context: int,
    limits: Any,
    keep: Callable[[bytes], bool] | None,
) -> tuple[list[str], Page, int]:
    """Matching lines as results; context lines come along with the matches they surround."""
    files: dict[bytes, dict[int, tuple[bool, bytes]]] = {}
    for record in records:
        name, sep, rest = record.partition(b"\0")
        if not sep or (keep is not None and not keep(name)):
            continue  # a "--" group separator, or a path the user's globs do not select
        found = CONTENT_LINE.match(rest)
        if found:
            number, kind, text = int(found.group(1)), found.group(2), found.group(3)
            files.setdefault(name, {})[number] = (kind == b":", text)
    matches = [
        (name, number)
        for name in sorted(files)
        for number, (is_match, _) in sorted(files[name].items())
        if is_match
    ]
    chosen, page = page_of(matches, offset, limit, cap)
    max_chars = limits["grep.max_line_chars"]
    shown: dict[bytes, set[int]] = {}
    for name, number in chosen:
        wanted = shown.setdefault(name, set())
        wanted.update(n for n in range(number - context, number + context + 1) if n >= 1)
    picked = {(name, number) for name, number in chosen}
    lines: list[str] = []
    cut_count = 0
    for name in sorted(shown):
        display = shown_name(name)
        previous: int | None = None
        for number in sorted(n for n in shown[name] if n in files[name]):
            if context and lines and (previous is None or number != previous + 1):
                lines.append("--")
            _, raw = files[name][number]
            text, cut = _cut(raw.decode("utf-8", "replace"), max_chars)
            cut_count += cut
            mark = ":" if (name, number) in picked else "-"
            lines.append(f"{display}{mark}{number}{mark}{text}")
            previous = number
    return lines, page, cut_count


def _result(
    lines: list[str],
    page: Page,
    unit: str,
    mode: str,
    root: str,
    pattern: str,
    found: ripgrep.RgRun,
    extra: dict[str, Any],
) -> dict[str, Any]:
    note = extra.pop("note", None)
    details: dict[str, Any] = {"mode": mode, "root": root, **page.details(), **extra}
    notes: list[str] = [note] if note else []
    if found.capped:
        details["output_capped"] = True
        notes.append(
            "[rg's output reached its size cap, so these results are incomplete and the total is "
            "a lower bound. Narrow the search with path, glob or a more specific pattern.]"
        )
    notice = page.notice(unit)
    if notice:
        notes.append(notice)
    text = f"No matches found for pattern {pattern!r} in {root}." if not lines else "\n".join(lines)
    if mode == "count" and lines:
        text += f"\n\n[{details['total_matches']} match(es) in {page.total} file(s).]"
    if notes:
        text += "\n\n" + "\n".join(notes)
    return text_result(text, **details)
