"""The ``write`` tool: replace a file's content atomically, keeping the encoding it had.

A file that started with a UTF-8 BOM or was UTF-16LE stays that way, because tools that silently
re-encode break Windows toolchains. The bytes land through a temp file and a rename, so a killed
write leaves the old file or the new one, never a torn mix; the temp file a killed write leaves
is swept by the mutation queue the next time a write or edit touches that directory.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from typing import Any

from pytest_agenttools.implementations.reference import diffing, fsport, paths, textcodec
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.results import ToolError, text_result

FEATURES = ("write.patch",)


class WriteOps:
    """How write touches the file system; a variant swaps this port, not the module."""

    def inspect(self, target: str) -> os.stat_result:
        """The stat of an existing target, refusing what cannot be written as a file."""
        return fsport.guard_readable(target)

    def read_head(self, target: str, size: int) -> bytes:
        with open(target, "rb") as handle:
            return handle.read(size)

    def store_text(self, content: str, old_head: bytes | None) -> str:
        """The text the file will hold: ``content`` as given (WRITE-EOL-02).

        ``old_head`` is the start of the file being replaced (None for a new file). A variant
        modelled on a tool that keeps a CRLF file's line endings converts here.
        """
        return content

    def make_parents(self, target: str) -> None:
        os.makedirs(os.path.dirname(target), exist_ok=True)

    def replace(
        self, target: str, data: bytes, mode: int | None, cancel: threading.Event | None = None
    ) -> None:
        """WRITE-ATOMIC-01: readers see the old bytes or the new ones, never a mix."""
        fsport.atomic_replace(target, data, mode, cancel)


OPS = WriteOps()
PARAMS = (Param("path", str, required=True), Param("content", str, required=True))
HEAD_BYTES = 4096


def _encode(content: str, encoding: textcodec.Encoding) -> bytes:
    """WRITE-SURR-01: text that cannot be encoded is refused before anything is touched."""
    try:
        return textcodec.encode(content, encoding)
    except UnicodeEncodeError as exc:
        bad = content[exc.start : exc.end]
        raise ToolError(
            "invalid_argument",
            f"content holds {bad!r} at index {exc.start}, which cannot be encoded as "
            f"{encoding.codec} (an unpaired surrogate?). Remove or replace it and write again.",
        ) from None


def _refuse_link_loop(path: str, target: str) -> None:
    """A symbolic link that resolves to itself (a loop) has no file to write: refused, and the
    link is left as it is (replacing it would destroy the link, not write through it)."""
    for candidate in (path, target):
        try:
            os.stat(candidate)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ToolError(
                    "symlink_loop",
                    f"Cannot write {path}: it is a symbolic link that loops (it resolves to "
                    "itself through too many levels of links), so there is no file to write "
                    "to. The link was left as it is; inspect it with bash `ls -l` and remove "
                    "or fix it first.",
                    path=path,
                ) from None


def _check_parent(target: str) -> None:
    """WRITE-PARENT-02: a component that must be a directory is a file: nothing is touched,
    and the error names that component (WRITE-PRES-03)."""
    parent = os.path.dirname(target)
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if parent and not os.path.isdir(parent):
        raise ToolError(
            "not_a_directory",
            f"Cannot create {target}: {parent} is a file, not a directory. Choose another path.",
            path=parent,
        )


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    """WRITE-ARG-03, WRITE-ARG-02: arguments are checked before the file system is touched;
    the error names the bad argument as this implementation calls it (WRITE-PRES-02)."""
    args = check("write", PARAMS, arguments)
    raw = paths.check_raw(args["path"])
    content: str = args["content"]
    path = paths.expand(raw, ctx.cwd, ctx.env)  # WRITE-PATH-01
    with ctx.queue.hold(path) as target:  # WRITE-QUEUE-01, WRITE-QUEUE-02: one queue with edit
        return _write_locked(path, target, content, ctx, ctx.ops_for("write", OPS))


def _write_locked(
    path: str, target: str, content: str, ctx: CallContext, ops: WriteOps
) -> dict[str, Any]:
    if os.path.isdir(target):  # WRITE-DIR-01; the error names it (WRITE-PRES-03)
        raise ToolError(
            "is_directory",
            f"{path} is a directory; write needs a file path inside it.",
            path=path,
        )
    _refuse_link_loop(path, target)
    existing = os.path.exists(target)
    old_bytes: bytes | None = None
    old_too_large = False
    mode: int | None = None
    encoding = textcodec.UTF8
    if existing:
        info = ops.inspect(target)
        mode = stat.S_IMODE(info.st_mode)  # WRITE-MODE-01
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
    text = ops.store_text(content, old_bytes)
    # WRITE-NEW-01, WRITE-EOL-02: the text as given; WRITE-ROUND-01: in the file's encoding
    data = _encode(text, encoding)
    _check_parent(target)
    try:
        ops.make_parents(target)  # WRITE-MKDIR-01
        # WRITE-OVER-01, WRITE-SYM-01; WRITE-CANCEL-01: a cancel stops it, the old file stays
        ops.replace(target, data, mode, ctx.cancel)
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
    limit = ctx.limits["write.diff_max_old_bytes"]
    if old_too_large or len(data) > limit:
        details["diff_omitted"] = "too_large"
    else:
        details.update(_change_details(old_bytes, path, text, encoding, ctx))
    details["observation"] = {
        "path": path,
        "bytes_written": len(data),  # WRITE-BYTES-01: the size on disk
        "created": not existing,  # WRITE-QUEUE-01: exactly one concurrent writer creates
        "first_changed_line": details.get("firstChangedLine"),
    }
    suffix = " (overwrote existing file)" if existing else ""
    # WRITE-PRES-01: the count stated is the size on disk; WRITE-GOLD-01: the exact wording
    return text_result(f"Successfully wrote {len(data)} bytes to {path}{suffix}", **details)


def _change_details(
    old_bytes: bytes | None,
    path: str,
    text: str,
    encoding: textcodec.Encoding,
    ctx: CallContext,
) -> dict[str, Any]:
    """WRITE-DETAILS-01: the patch and the first changed line (a binary old file gets none)."""
    if old_bytes is not None and b"\x00" in old_bytes[:HEAD_BYTES] and encoding.codec == "utf-8":
        return {"diff_omitted": "binary"}
    old_text = textcodec.decode(old_bytes, encoding) if old_bytes is not None else ""
    new_text = text[1:] if encoding.has_bom and text.startswith("\ufeff") else text
    label = diffing.patch_label(path, ctx.cwd)
    # bounded in time whatever the texts: a coarse hunk when the fine alignment would be costly
    change = diffing.compute(
        old_text, new_text, label, ctx.limits["write.patch_max_bytes"], cancel=ctx.cancel
    )
    details: dict[str, Any] = {
        "diff": change.diff,
        "patch": change.patch,
        "firstChangedLine": change.first_changed_line,
    }
    if change.patch_truncated:
        details["patch_truncated"] = True
    if change.coarse:
        details["diff_coarse"] = True
    return details


#: the tools of this module, as the toolbox reads them
TOOLS = (ToolDefinition("write", run, features=FEATURES, ops=OPS),)
