"""The narrow port through which the reference touches files.

Everything that can block, race or tear lives here: opening without hanging on a FIFO, telling
special files apart, and replacing a file atomically. Unit tests run these on pyfakefs and on the
real file system alike.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile

from .results import ToolError

BLOCKED_DEVICES = frozenset(
    {
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/full",
        "/dev/stdin",
        "/dev/tty",
        "/dev/console",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
    }
)
PROC_STD_FD = re.compile(r"^/proc/(self|thread-self|\d+)/fd/[012]$")
SPECIAL_KINDS = {
    stat.S_IFIFO: "named pipe (FIFO)",
    stat.S_IFSOCK: "socket",
    stat.S_IFBLK: "block device",
    stat.S_IFCHR: "character device",
}


def is_blocked_device(path: str) -> bool:
    return path in BLOCKED_DEVICES or bool(PROC_STD_FD.match(path))


def guard_readable(path: str) -> os.stat_result:
    """Refuse what reading could hang on or stream forever; return the (followed) stat."""
    if is_blocked_device(path) or is_blocked_device(os.path.realpath(path)):
        raise ToolError(
            "device",
            f"Refusing to read {path}: it is a device or stream that never ends or waits for "
            "input. Read a regular file instead.",
        )
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise
    except PermissionError:
        raise ToolError(
            "permission_denied", f"Permission denied: cannot access {path}. Check its permissions."
        ) from None
    except OSError as exc:
        raise ToolError("io_error", f"Cannot access {path}: {exc.strerror or exc}.") from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise ToolError(
            "is_directory",
            f"{path} is a directory, not a file. List it with glob (path={path!r}) or bash `ls`.",
        )
    kind = stat.S_IFMT(mode)
    if kind in SPECIAL_KINDS and not (
        kind == stat.S_IFCHR and os.path.realpath(path) == "/dev/null"
    ):
        raise ToolError(
            "not_regular_file",
            f"{path} is not a regular file ({SPECIAL_KINDS[kind]}); reading it could block or "
            "never end. Read a regular file instead.",
        )
    return info


def open_for_read(path: str) -> int:
    """Open without blocking (a FIFO swapped in after the check cannot hang us); return the fd."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except PermissionError:
        raise ToolError(
            "permission_denied", f"Permission denied: cannot read {path}. Check its permissions."
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) and os.path.realpath(path) != "/dev/null":
        os.close(fd)
        raise ToolError("not_regular_file", f"{path} is not a regular file; refusing to read it.")
    with contextlib.suppress(AttributeError, OSError):
        os.set_blocking(fd, True)
    return fd


def current_umask() -> int:
    """The process umask, read without the set-and-restore race of ``os.umask``."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def atomic_replace(target: str, data: bytes, mode: int | None) -> None:
    """Write ``data`` to a temp file beside ``target``, fsync it, then rename it over ``target``.

    A reader (or a crash) sees the old bytes or the new bytes, never a mix. ``mode`` is the
    permission bits to keep; ``None`` means a new file with the default mode under the umask.
    """
    directory, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:40]}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~current_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
