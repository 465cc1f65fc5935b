"""The ``write`` tool: replace a file's content atomically, keeping the encoding it had.

A file that started with a UTF-8 BOM or was UTF-16LE stays that way, because tools that silently
re-encode break Windows toolchains. The bytes land through a temp file and a rename, so a killed
write leaves the old file or the new one, never a torn mix.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from . import diffing, fsport, paths, textcodec
from .arguments import Param, check
from .context import CallContext
from .results import ToolError, text_result

FEATURES = ("write.patch",)


class WriteOps:
    """How write touches the file system; a variant swaps this port, not the module."""

    def inspect(self, target: str) -> os.stat_result:
        """The stat of an existing target, refusing what cannot be written as a file."""
        return fsport.guard_readable(target)

    def read_head(self, target: str, size: int) -> bytes:
        with open(target, "rb") as handle:
            return handle.read(size)

    def make_parents(self, target: str) -> None:
        os.makedirs(os.path.dirname(target), exist_ok=True)

    def replace(self, target: str, data: bytes, mode: int | None) -> None:
        """WRITE-ATOMIC-01: readers see the old bytes or the new ones, never a mix."""
        fsport.atomic_replace(target, data, mode)


OPS = WriteOps()
PARAMS = (Param("path", str, required=True), Param("content", str, required=True))
HEAD_BYTES = 4096


def _encode(content: str, encoding: textcodec.Encoding) -> bytes:
    try:
        return textcodec.encode(content, encoding)
    except UnicodeEncodeError as exc:
        bad = content[exc.start : exc.end]
        raise ToolError(
            "invalid_argument",
            f"content holds {bad!r} at index {exc.start}, which cannot be encoded as "
            f"{encoding.codec} (an unpaired surrogate?). Remove or replace it and write again.",
        ) from None


def _check_parent(target: str) -> None:
    """Give a precise error when a path component that must be a directory is a file."""
    parent = os.path.dirname(target)
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if parent and not os.path.isdir(parent):
        raise ToolError(
            "not_a_directory",
            f"Cannot create {target}: {parent} is a file, not a directory. Choose another path.",
        )


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("write", PARAMS, arguments)
    raw = paths.check_raw(args["path"])
    content: str = args["content"]
    path = paths.expand(raw, ctx.cwd, ctx.env)
    with ctx.queue.hold(path) as target:  # WRITE-QUEUE-01
        return _write_locked(path, target, content, ctx, ctx.ops_for("write", OPS))


def _write_locked(
    path: str, target: str, content: str, ctx: CallContext, ops: WriteOps
) -> dict[str, Any]:
    if os.path.isdir(target):
        raise ToolError(
            "is_directory", f"{path} is a directory; write needs a file path inside it."
        )
    existing = os.path.lexists(target) and os.path.exists(target)
    old_bytes = b""
    old_too_large = False
    mode: int | None = None
    encoding = textcodec.UTF8
    if existing:
        info = ops.inspect(target)
        mode = stat.S_IMODE(info.st_mode)
        limit = ctx.limits["write.diff_max_old_bytes"]
        old_too_large = info.st_size > limit
        try:
            old_bytes = ops.read_head(target, HEAD_BYTES if old_too_large else limit + 1)
        except PermissionError:
            raise ToolError(
                "permission_denied",
                f"Permission denied: cannot open {path}. Check its permissions.",
            ) from None
        encoding = textcodec.detect_for_write(old_bytes)  # WRITE-BOM-01, WRITE-ENC-01
    data = _encode(content, encoding)
    _check_parent(target)
    try:
        ops.make_parents(target)  # WRITE-MKDIR-01
        ops.replace(target, data, mode)
    except PermissionError:
        raise ToolError(
            "permission_denied",
            f"Permission denied: cannot write {path}. Check the permissions of its directory.",
        ) from None
    except OSError as exc:
        raise ToolError("io_error", f"Cannot write {path}: {exc.strerror or exc}.") from None
    details: dict[str, Any] = {
        "path": path,
        "created": not existing,
        "bytes_written": len(data),
        "encoding": encoding.name,
        "bom": encoding.has_bom,
    }
    if old_too_large:
        details["diff_omitted"] = "too_large"
    else:
        details.update(_change_details(old_bytes, path, existing, content, encoding, ctx))
    details["observation"] = {
        "path": path,
        "bytes_written": len(data),  # WRITE-BYTES-01: the size on disk
        "created": not existing,
        "first_changed_line": details.get("firstChangedLine"),
    }
    suffix = " (overwrote existing file)" if existing else ""
    return text_result(f"Successfully wrote {len(data)} bytes to {path}{suffix}", **details)


def _change_details(
    old_bytes: bytes,
    path: str,
    existing: bool,
    content: str,
    encoding: textcodec.Encoding,
    ctx: CallContext,
) -> dict[str, Any]:
    if b"\x00" in old_bytes[:HEAD_BYTES] and encoding.codec == "utf-8":
        return {"diff_omitted": "binary"}
    old_text = textcodec.decode(old_bytes, encoding) if existing else ""
    new_text = content[1:] if encoding.has_bom and content.startswith("\ufeff") else content
    label = diffing.patch_label(path, ctx.cwd)
    change = diffing.compute(old_text, new_text, label, ctx.limits["write.patch_max_bytes"])
    details: dict[str, Any] = {
        "diff": change.diff,
        "patch": change.patch,
        "firstChangedLine": change.first_changed_line,
    }
    if change.patch_truncated:
        details["patch_truncated"] = True
    return details
