"""The ``glob`` tool: list files whose path matches a pattern, with ripgrep's file walker.

Pattern rules (the ``gitignore`` dialect the reference declares: ripgrep's globs, matched
against paths relative to the search directory): a pattern without ``/`` matches a file name at
any depth (``*.py``); a pattern with ``/`` is anchored at the search directory (``src/*.py``),
and ``./`` anchors a name pattern (``./*.py``: top level only); ``*`` never crosses ``/``, ``**``
spans directories; ``{a,b}`` alternatives; dotfiles match like any other file. Files only,
never directories. A port declaring the ``bash`` or ``minimatch`` dialect (``GlobOps``) matches
whole relative paths instead (``*.py``: top level only).

``details.observation`` carries the listed paths as data (relative to the call's ``cwd``, or
absolute outside it). Every system operation goes through the operations port.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from pytest_agenttools.implementations.reference import (
    search_filters,
    search_input,
    search_ops,
    search_root,
)
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.results import ToolError, text_result
from pytest_agenttools.implementations.reference.search_ops import GlobOps
from pytest_agenttools.implementations.reference.search_paging import (
    Page,
    check_offset_limit,
    decoded_name,
    observed_path,
    page_of,
    shown_name,
)

FEATURES = (
    "glob.default_excludes",
    "glob.gitignore",
    "glob.gitignore_outside_git",
    "glob.include_ignored",
    "glob.skip_bulky",
    "glob.sort_modified",
)
LIMITS: dict[str, int | float] = {
    "glob.max_results": 200,
    "glob.timeout_s": 30.0,
    "glob.max_output_bytes": 8 * 1024 * 1024,
}
OPS = GlobOps()
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
    args = check("glob", PARAMS, arguments)  # GLOB-ARG-01
    ops: GlobOps = ctx.ops_for("glob", OPS)
    pattern = _pattern(args["pattern"], ops)
    order = args.get("sort", "name")
    if order not in SORTS:
        raise ToolError(
            "invalid_argument",
            f"glob: sort must be one of {', '.join(SORTS)}, got {order!r:.60}.",
        )
    offset, limit = check_offset_limit(args, "glob")
    root = ops.resolve_root(args.get("path"), ctx.cwd, ctx.env, "glob")
    if root.target is not None:  # GLOB-PATH-01
        raise ToolError(
            "not_a_directory",
            f"{root.path} is a file; glob lists files below a directory. Read the file with "
            f"read, or pass its directory ({root.directory}) as path.",
        )
    include_ignored = bool(args.get("include_ignored"))
    if include_ignored and not _narrow(pattern, root.path, ctx.cwd):  # GLOB-IGN-02
        raise ToolError(
            "too_broad",
            "glob: include_ignored=true lists files that .gitignore and the default "
            "exclusions (node_modules, dist, build, ...) hide, so it needs a narrow search: pass "
            "path=<a subdirectory>, a pattern that starts with a directory name "
            "('node_modules/pkg/**'), or an exact file name ('**/package.json').",
        )
    if root.sensitive:  # GLOB-SENS-03: the exclusions match below a root, never the root
        return search_root.sensitive_result(
            root, "No files listed", observation=_observation([], Page(0, 0, 0, None), False)
        )
    limits = ctx.limits
    # GLOB-FILES-01: --files lists files only, and rg never follows links without --follow
    argv = [ops.rg(ctx.services), "--files", *ops.base_flags(), "--null"]
    if include_ignored:
        argv.append("--no-ignore")
    default_dirs = not include_ignored and not ops.inside_default_excluded(
        root.directory, ctx.cwd
    )  # GLOB-EXCL-01
    bulky = search_filters.is_broad(pattern)  # GLOB-BULK-01
    keep: Callable[[bytes], bool] | None
    if ops.dialect == "gitignore":  # GLOB-PAT-03 and the gitignore half of GLOB-PAT-04
        argv += ops.selection([pattern], default_dirs=default_dirs, bulky=bulky)
        keep = ops.path_filter([pattern])
    else:  # GLOB-PAT-04: the whole relative path, in the declared dialect
        argv += ops.selection([], default_dirs=default_dirs, bulky=bulky)
        keep = ops.anchored_matcher(pattern)
    found = ops.run(
        argv,
        root.directory,
        timeout=limits["glob.timeout_s"],
        max_bytes=limits["glob.max_output_bytes"],
        cancel=ctx.cancel,
        env=ops.engine_env(ctx.env),
    )
    if found.cancelled:
        raise ToolError("aborted", "glob was cancelled before rg finished.")
    if found.timed_out:  # GLOB-TIME-01
        raise ToolError(
            "timeout",
            f"glob timed out after {limits['glob.timeout_s']:g} seconds and rg was stopped. "
            "Narrow the search with a smaller path or a more specific pattern.",
        )
    message = found.stderr.strip()
    if found.returncode == 2 and message and not found.stdout:
        if "glob" in message:
            raise ToolError(
                "invalid_argument",
                f"glob: pattern {args['pattern']!r:.200} is not a valid glob: "
                f"{search_input.glob_error(message)}. Check its [...] classes and {{...}} braces.",
            )
        raise ToolError("rg_failed", f"rg failed: {message[:500]}")
    names = found.records(b"\0")
    if keep is not None:
        names = [name for name in names if keep(name)]
    if order == "modified":  # GLOB-SORT-02
        names = ops.newest_first(os.fsencode(root.directory), names)
    else:  # GLOB-SORT-01
        names.sort()
    chosen, page = page_of(names, offset, limit, limits["glob.max_results"])  # GLOB-CAP-01
    details: dict[str, Any] = {"root": root.path, "sort": order, **page.details()}
    details["observation"] = _observation(
        [observed_path(root.directory, decoded_name(name), ctx.cwd) for name in chosen],
        page,
        found.capped,
    )
    deep = search_ops.too_deep_note(found, root.path)
    if deep:
        details["too_deep"] = found.too_deep
    if not chosen:  # GLOB-NONE-01
        text = (
            f"No files matched {args['pattern']!r} in {root.path}. Files ignored by .gitignore "
            "and directories such as node_modules, dist and build are skipped; to include them, "
            "pass include_ignored=true with a narrow path or pattern."
        )
        if deep:
            text += "\n\n" + deep
        if found.capped:
            details["output_capped"] = True
        return text_result(text, **details)
    # GLOB-PRES-01: every listed path in the text; GLOB-PRES-02: the notice names the offset;
    # GLOB-GOLD-01 pins this layout
    text = "\n".join(shown_name(name) for name in chosen)
    notes = []
    if found.capped:  # GLOB-OUT-01
        details["output_capped"] = True
        notes.append(
            "[rg's output reached its size cap, so this listing is incomplete. Narrow the path "
            "or the pattern.]"
        )
    if deep:
        notes.append(deep)
    notice = page.notice("files")
    if notice:
        notes.append(notice)
    if notes:
        text += "\n\n" + "\n".join(notes)
    return text_result(text, **details)


def _observation(paths: list[str], page: Page, capped: bool) -> dict[str, Any]:
    """``details.observation`` (GlobObservation): the listed paths as data."""
    return {
        "paths": paths,
        "truncated": capped or page.next_offset is not None,
        "next_offset": page.next_offset,
        "total": page.total,
    }


def _pattern(raw: str, ops: GlobOps) -> str:
    """Check the pattern (GLOB-INPUT-01); in gitignore, ``./x`` becomes ripgrep's ``/x``."""
    if not raw.strip():
        raise ToolError(
            "invalid_argument", "glob: pattern is empty. Pass a pattern like '**/*.py'."
        )
    ops.check_text(
        raw, "glob", "pattern", max_chars=search_input.MAX_GLOB_CHARS, what="glob patterns"
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
    if ops.dialect != "gitignore":
        return raw
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
    parts = [part for part in pattern.split("/") if part and part != "."]
    if not parts:
        return False
    first_is_literal = len(parts) > 1 and not search_filters.any_glob_chars(parts[0])
    last_is_literal = not search_filters.any_glob_chars(parts[-1])
    return first_is_literal or last_is_literal


#: the tools of this module, as the toolbox reads them
TOOLS = (ToolDefinition("glob", run, features=FEATURES, limits=LIMITS, ops=OPS),)
