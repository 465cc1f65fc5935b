"""Where the kit's scratch space lives (workspaces, servers' temp roots): a module below the
adapters, which need the same place as the workspaces they serve."""

from __future__ import annotations

import os
import tempfile

#: a RAM file system that most Linux systems mount; where it is, workspaces go there
RAM_DIR = "/dev/shm"
#: below this much free space the RAM file system is passed over
RAM_MIN_FREE = 512 * 1024 * 1024


def workspace_base() -> str:
    """Where workspaces are made, resolved: ``$AGENTTOOLS_TMPDIR``, else ``$TMPDIR``, else the
    RAM file system (``/dev/shm``) when it is a writable directory with room, else the system
    temp dir.

    The suite creates and removes tens of thousands of files, which costs far less on a RAM
    file system than on a journalled disk, most of all while other work loads the disk
    (benchmarks/bench_suite_run.py measures both).
    A choice the caller made (either variable) always wins, so a tool can be tested on the file
    system its users have.
    """
    for variable in ("AGENTTOOLS_TMPDIR", "TMPDIR"):
        chosen = os.environ.get(variable)
        if chosen:
            return os.path.realpath(chosen)
    if ram_dir_usable(RAM_DIR):
        return os.path.realpath(RAM_DIR)
    return os.path.realpath(tempfile.gettempdir())


def ram_dir_usable(path: str) -> bool:
    """``path`` is a directory this process may create entries in, with ``RAM_MIN_FREE`` free,
    on a file system that lets files run (containers often mount ``/dev/shm`` noexec, and the
    suite runs scripts it writes into the workspace)."""
    try:
        if not os.path.isdir(path) or not os.access(path, os.W_OK | os.X_OK):
            return False
        stats = os.statvfs(path)
    except OSError:
        return False
    if stats.f_flag & getattr(os, "ST_NOEXEC", 0):
        return False
    return stats.f_bavail * stats.f_frsize >= RAM_MIN_FREE
