"""Where a grep or glob call searches: the ``path`` argument checked before rg ever runs.

A missing path, a symbolic-link loop, an unreadable directory and a special file each become an
error result that names the path; a sensitive root (``.ssh``, a ``.env`` file) is reported so the
tool can answer "nothing here" without looking inside.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.implementations.reference import paths, search_filters, search_input
from pytest_agenttools.implementations.reference.results import ToolError, text_result

#: Longest ``path`` argument accepted (characters): far beyond any real path (PATH_MAX 4096).
PATH_MAX_CHARS = 64 * 1024


@dataclass(frozen=True)
class Root:
    """``directory`` is where rg runs; ``target`` is a file name inside it (or None: all)."""

    path: str
    directory: str
    target: str | None
    sensitive: str | None


def resolve(raw: object | None, cwd: str, env: Mapping[str, str] | None, tool: str) -> Root:
    """GREP-PATH-01, GREP-PATH-02 (an unreadable root), GLOB-PATH-01: errors that name the path
    (GREP-PRES-03, GLOB-PRES-03)."""
    if raw is None:
        full = cwd
    else:
        text = search_input.check_text(
            paths.check_raw(raw), tool, "path", max_chars=PATH_MAX_CHARS, what="paths"
        )
        full = paths.expand(text, cwd, env)
    if not os.path.lexists(full):
        raise ToolError(
            "not_found",
            f"Path not found: {full}. Check the path, or omit it to search the working "
            f"directory ({cwd}).",
        )
    try:
        info = os.stat(full)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ToolError(
                "symlink_loop",
                f"{full} is a symbolic link loop (it never reaches a real file or directory). "
                "Search its parent directory or fix the link.",
            ) from None
        if exc.errno == errno.ENOENT:
            raise ToolError(
                "not_found",
                f"{full} is a symbolic link to {os.readlink(full)!r}, which does not exist.",
            ) from None
        raise ToolError("io_error", f"Cannot access {full}: {exc.strerror or exc}.") from None
    sensitive = search_filters.sensitive_root(full)
    if stat.S_ISDIR(info.st_mode):
        if not os.access(full, os.R_OK | os.X_OK):
            raise ToolError(
                "permission_denied",
                f"Permission denied: cannot list {full}. Search a directory you can read.",
            )
        return Root(full, full, None, sensitive)
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(
            "not_regular_file",
            f"{full} is not a regular file or a directory; {tool} searches files and directories.",
        )
    if not os.access(full, os.R_OK):
        raise ToolError("permission_denied", f"Permission denied: cannot read {full}.")
    directory, name = os.path.split(full)
    return Root(full, directory, name, sensitive)


def sensitive_result(root: Root, nothing: str, **details: Any) -> dict[str, Any]:
    """The empty answer for a root that may hold secrets: a success that says why it is empty.

    GREP-SENS-04, GLOB-SENS-03: nothing below the root is looked at, so nothing can leak.
    """
    return text_result(
        f"{nothing}: {root.path} is not searched because {root.sensitive!r} may hold "
        "secrets (keys, credentials, version-control data).",
        **details,
        root=root.path,
        total=0,
        shown=0,
        offset=0,
        has_more=False,
        excluded="sensitive",
    )
