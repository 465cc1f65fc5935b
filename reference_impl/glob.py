"""The ``glob`` tool: list files whose path matches a pattern, with ripgrep's file walker.

Pattern rules (ripgrep's gitignore-style globs, matched against paths relative to the search
directory): a pattern without ``/`` matches a file name at any depth (``*.py``); a pattern with
``/`` is anchored at the search directory (``src/*.py``), and ``./`` anchors a name pattern
(``./*.py``: top level only); ``*`` never crosses ``/``, ``**`` spans directories; ``{a,b}``
alternatives; dotfiles match like any other file. Files only, never directories.
"""

from __future__ import annotations

import os
from typing import Any

from . import ripgrep, search_filters, search_root
from .arguments import Param, check
from .context import CallContext
from .results import ToolError, text_result
from .search_paging import check_offset_limit, newest_first, page_of, shown_name

FEATURES = ("glob.include_ignored", "glob.skip_bulky", "glob.sort_modified")
LIMITS: dict[str, int | float] = {
    "glob.max_results": 200,
    "glob.timeout_s": 30.0,
    "glob.max_output_bytes": 8 * 1024 * 1024,
}
PARAMS = (
    Param("pattern", str, required=True),
    Param("path", str),
    Param("include_ignored", bool),
    Param("sort", str),
    Param("offset", int),
    Param("limit", int),
)
SORTS = ("name", "modified")


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("glob", PARAMS, arguments)
    pattern = _pattern(args["pattern"])
    order = args.get("sort", "name")
    if order not in SORTS:
        raise ToolError(
            "invalid_argument", f"glob: sort must be one of {', '.join(SORTS)}, got {order!r}."
        )
    offset, limit = check_offset_limit(args, "glob")
    root = search_root.resolve(args.get("path"), ctx.cwd, ctx.env, "glob")
    if root.target is not None:
        raise ToolError(
            "not_a_directory",
            f"{root.path} is a file; glob lists files below a directory. Read the file with "
            f"read, or pass its directory ({root.directory}) as path.",
        )
    include_ignored = bool(args.get("include_ignored"))
    if include_ignored and not _narrow(pattern, root.path, ctx.cwd):
        raise ToolError(
            "too_broad",
            "glob: include_ignored=true lists files that .gitignore and the default "
            "exclusions (node_modules, dist, build, ...) hide, so it needs a narrow search: pass "
            "path=<a subdirectory>, a pattern that starts with a directory name "
            "('node_modules/pkg/**'), or an exact file name ('**/package.json').",
        )
    if root.sensitive:
        return search_root.sensitive_result(root, "No files listed")
    limits = ctx.limits
    argv = [
        ripgrep.rg_path(ctx.services),
        "--files",
        *ripgrep.BASE_FLAGS,
        "--null",
    ]
    if include_ignored:
        argv.append("--no-ignore")
    default_dirs = not include_ignored and not search_filters.inside_default_excluded(
        root.directory, ctx.cwd
    )
    argv += search_filters.glob_arguments(
        [pattern], default_dirs=default_dirs, bulky=search_filters.is_broad(pattern)
    )
    found = ripgrep.run(
        argv,
        root.directory,
        timeout=limits["glob.timeout_s"],
        max_bytes=limits["glob.max_output_bytes"],
        cancel=ctx.cancel,
    )
    if found.cancelled:
        raise ToolError("aborted", "glob was cancelled before rg finished.")
    if found.timed_out:
        raise ToolError(
            "timeout",
            f"glob timed out after {limits['glob.timeout_s']:g} seconds and rg was stopped. "
            "Narrow the search with a smaller path or a more specific pattern.",
        )
    if found.returncode == 2 and found.stderr.strip() and not found.stdout:
        raise ToolError("rg_failed", f"rg failed: {found.stderr.strip()[:500]}")
    names = found.records(b"\0")
    keep = search_filters.path_filter([pattern])
    if keep is not None:
        names = [name for name in names if keep(name)]
    if order == "modified":
        names = newest_first(os.fsencode(root.directory), names)
    else:
        names.sort()
    chosen, page = page_of(names, offset, limit, limits["glob.max_results"])
    details: dict[str, Any] = {"root": root.path, "sort": order, **page.details()}
    if not chosen:
        text = (
            f"No files matched {args['pattern']!r} in {root.path}. Files ignored by .gitignore "
            "and directories such as node_modules, dist and build are skipped; to include them, "
            "pass include_ignored=true with a narrow path or pattern."
        )
        return text_result(text, **details)
    text = "\n".join(shown_name(name) for name in chosen)
    notes = []
    if found.capped:
        details["output_capped"] = True
        notes.append(
            "[rg's output reached its size cap, so this listing is incomplete. Narrow the path "
            "or the pattern.]"
        )
    notice = page.notice("files")
    if notice:
        notes.append(notice)
    if notes:
        text += "\n\n" + "\n".join(notes)
    return text_result(text, **details)


def _pattern(raw: str) -> str:
    """Check the pattern; ``./x`` becomes ripgrep's anchored ``/x``."""
    if not raw.strip():
        raise ToolError(
            "invalid_argument", "glob: pattern is empty. Pass a pattern like '**/*.py'."
        )
    if raw.startswith("/"):
        raise ToolError(
            "invalid_argument",
            f"glob: pattern {raw!r} is absolute; patterns are relative to the search directory. "
            "Pass the directory as path and a relative pattern (for example path='/src', "
            "pattern='**/*.py').",
        )
    if raw.startswith("!"):
        raise ToolError(
            "invalid_argument",
            f"glob: pattern {raw!r} starts with '!'; glob takes one pattern of files to list, "
            "not an exclusion.",
        )
    if ".." in raw.split("/"):
        raise ToolError(
            "invalid_argument",
            f"glob: pattern {raw!r} contains '..'; pass the directory to search as path instead.",
        )
    if "\x00" in raw:
        raise ToolError("invalid_argument", "glob: pattern contains a NUL byte.")
    if raw.endswith("/"):  # a directory: everything below it
        raw += "**"
    if raw.startswith("./"):
        return "/" + raw[2:].lstrip("/")
    return raw


def _narrow(pattern: str, root: str, cwd: str) -> bool:
    """include_ignored is allowed for a subdirectory, a directory prefix or an exact file name."""
    relative = os.path.relpath(root, cwd)
    if relative != "." and relative != ".." and not relative.startswith(".." + os.sep):
        return True
    parts = [part for part in pattern.split("/") if part]
    if not parts:
        return False
    first_is_literal = len(parts) > 1 and not search_filters.any_glob_chars(parts[0])
    last_is_literal = not search_filters.any_glob_chars(parts[-1])
    return first_is_literal or last_is_literal
