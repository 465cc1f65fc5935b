"""The narrow port through which the reference touches files.

Everything that can block, race or tear lives here: opening without hanging on a FIFO, telling
special files apart, and replacing a file atomically. Unit tests run these on pyfakefs and on the
real file system alike.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading

from pytest_agenttools.implementations.reference.results import ToolError

#: devices that never end or produce data forever (READ-DEV-01)
ENDLESS_DEVICES = frozenset({"/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"})
#: the process's own standard streams and terminal (READ-DEV-03): a stdio server that reads its
#: own stdin consumes the protocol; one that reads its stdout or tty blocks or corrupts it
STD_STREAMS = frozenset(
    {
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/console",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
    }
)
BLOCKED_DEVICES = ENDLESS_DEVICES | STD_STREAMS
PROC_STD_FD = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/fd/[012]$")
MAX_LINK_HOPS = 40
SPECIAL_KINDS = {
    stat.S_IFIFO: "named pipe (FIFO)",
    stat.S_IFSOCK: "socket",
    stat.S_IFBLK: "block device",
    stat.S_IFCHR: "character device",
}


def is_blocked_device(path: str) -> bool:
    return path in BLOCKED_DEVICES or bool(PROC_STD_FD.match(path))


def link_chain(path: str) -> list[str]:
    """``path`` and every path its symbolic links lead through, in order (bounded).

    ``/dev/stdin`` leads to ``/proc/self/fd/0`` and then to whatever stdin is (a pipe, a
    terminal, ``/dev/null``): checking only the last hop would let a link in the workspace,
    or stdin redirected from ``/dev/null``, slip past the name checks.
    """
    chain = [path]
    current = path
    for _ in range(MAX_LINK_HOPS):
        try:
            target = os.readlink(current)
        except (OSError, ValueError):
            break
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
        if current in chain:
            break
        chain.append(current)
    with contextlib.suppress(OSError, ValueError):
        real = os.path.realpath(path)
        if real not in chain:
            chain.append(real)
    return chain


def refuse_device(path: str) -> None:
    """READ-DEV-01, READ-DEV-03: refuse an endless device or a standard stream, by any name.

    A path that is itself a regular file (not a link) leads nowhere else and is no device:
    only its own name is checked, without walking the link chain (a read of a page costs a
    fifth less)."""
    try:
        plain = stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        plain = False
    for hop in [path] if plain else link_chain(path):
        lead = f" (it leads to {hop})" if hop != path else ""
        if hop in ENDLESS_DEVICES:
            raise ToolError(
                "device",
                f"Refusing to read {path}{lead}: a device that never ends. "
                "Read a regular file instead.",
                path=path,
            )
        if is_blocked_device(hop):
            raise ToolError(
                "device",
                f"Refusing to read {path}{lead}: a standard stream or terminal; reading it "
                "would wait for input or consume this tool's own channel. "
                "Read a regular file instead.",
                path=path,
            )


def check_file_kind(path: str) -> os.stat_result:
    """Refuse a directory or a special file (READ-SPECIAL-02; block devices: READ-DEV-04);
    return the (followed) stat."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise
    except PermissionError:
        raise ToolError(
            "permission_denied",
            f"Permission denied: cannot access {path}. Check its permissions.",
            path=path,
        ) from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "invalid name"
        raise ToolError("io_error", f"Cannot access {path}: {reason}.", path=path) from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise ToolError(
            "is_directory",
            f"{path} is a directory, not a file. List it with glob (path={path!r}) or bash `ls`.",
            path=path,
        )
    kind = stat.S_IFMT(mode)
    if kind in SPECIAL_KINDS and not (
        kind == stat.S_IFCHR and os.path.realpath(path) == "/dev/null"
    ):
        raise ToolError(
            "not_regular_file",
            f"{path} is not a regular file ({SPECIAL_KINDS[kind]}); reading it could block or "
            "never end. Read a regular file instead.",
            path=path,
        )
    return info


def guard_readable(path: str) -> os.stat_result:
    """Refuse what reading could hang on or stream forever; return the (followed) stat."""
    refuse_device(path)
    return check_file_kind(path)


def open_for_read(path: str) -> int:
    """Open without blocking (a FIFO swapped in after the check cannot hang us); return the fd."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except PermissionError:
        raise ToolError(
            "permission_denied",
            f"Permission denied: cannot read {path}. Check its permissions.",
            path=path,
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) and os.path.realpath(path) != "/dev/null":
        os.close(fd)
        raise ToolError(
            "not_regular_file", f"{path} is not a regular file; refusing to read it.", path=path
        )
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


#: temp files of atomic_replace: ``.NAME.agenttools-PID-START-TOKEN.tmp``, where PID and START
#: (its start time in clock ticks since boot) name the writing process, so a sweep can tell the
#: leftovers of a dead writer from the temp file of a write still running
TEMP_NAME = re.compile(r"^\..*\.agenttools-(?P<pid>\d+)-(?P<start>\d+)-[0-9a-f]+\.tmp$")
WRITE_CHUNK = 1024 * 1024


def _start_ticks(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot), None if there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat_line = handle.read()
    except OSError:
        return None
    fields = stat_line[stat_line.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _own_token() -> tuple[int, int]:
    pid = os.getpid()
    return pid, _start_ticks(pid) or 0


def writer_alive(pid: int, start: int) -> bool:
    """Whether the process that made a temp file still runs (the same process, not a reuse of
    its pid). Where /proc is missing, a live pid counts as alive."""
    if os.path.isdir("/proc/self"):
        return _start_ticks(pid) == start if start else _start_ticks(pid) is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def temp_path(target: str) -> str:
    directory, name = os.path.split(target)
    pid, start = _own_token()
    return os.path.join(
        directory, f".{name[:40]}.agenttools-{pid}-{start}-{secrets.token_hex(4)}.tmp"
    )


def sweep_stale_temps(directory: str, *, own: bool = False) -> int:
    """Remove the temp files ``atomic_replace`` left in ``directory`` when its writer died
    (killed mid-write, WRITE-ATOMIC-01); with ``own``, this process's too (at shutdown, when
    none of its writes runs). Files of live writers and every other file stay. Returns how
    many were removed; an unreadable directory is left alone."""
    removed = 0
    me = _own_token()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        found = TEMP_NAME.match(entry.name)
        if found is None:
            continue
        writer = (int(found["pid"]), int(found["start"]))
        if writer == me and not own:
            continue
        if writer != me and writer_alive(*writer):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed


#: what a reference process leaves in the temp directory while it runs (rm shim and trash,
#: bash output logs, grep pattern files), named ``agenttools-KIND-PID-START-...`` after it
OWNED_TEMP = re.compile(r"^agenttools-(?:data|bash|pattern)-(?P<pid>\d+)-(?P<start>\d+)-")


def owned_prefix(kind: str) -> str:
    """The temp name prefix of this process's ``kind`` of leftover, for ``sweep_dead_owners``."""
    pid, start = _own_token()
    return f"agenttools-{kind}-{pid}-{start}-"


def sweep_dead_owners(directory: str | None = None) -> int:
    """Remove what killed reference processes left in the temp directory (a SIGKILLed server
    never cleans up): only entries whose owner is dead, by pid and start time, never a live
    process's. Returns how many entries were removed."""
    directory = directory or tempfile.gettempdir()
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        found = OWNED_TEMP.match(entry.name)
        if found is None or writer_alive(int(found["pid"]), int(found["start"])):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
    return removed


#: new content given in pieces (views of a buffer and the bytes between them), written in
#: order: an edit streams its output this way instead of joining a second copy of the file
Pieces = tuple[bytes | memoryview, ...]


def atomic_replace(
    target: str, data: bytes | Pieces, mode: int | None, cancel: threading.Event | None = None
) -> None:
    """Write ``data`` (bytes, or ``Pieces`` in order) to a temp file beside ``target``, fsync it,
    then rename it over ``target``.

    A reader (or a crash) sees the old bytes or the new bytes, never a mix (WRITE-ATOMIC-01).
    ``mode`` is the permission bits to keep; ``None`` means a new file with the default mode
    under the umask. The data goes out in chunks, and ``cancel`` is honoured between them: a
    cancelled write removes its temp file and leaves the target as it was. A write killed
    before its rename leaves the temp file, named after its process so that a later sweep
    (``sweep_stale_temps``) can remove it.
    """
    directory = os.path.dirname(target)
    tmp = temp_path(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in (data,) if isinstance(data, bytes) else data:
                view = memoryview(piece)
                for at in range(0, len(view), WRITE_CHUNK):
                    if cancel is not None and cancel.is_set():
                        raise ToolError(
                            "aborted",
                            f"The write of {target} was cancelled; the file was not changed.",
                        )
                    handle.write(view[at : at + WRITE_CHUNK])
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
