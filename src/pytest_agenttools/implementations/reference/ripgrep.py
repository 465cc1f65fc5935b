"""Find and run the ``rg`` binary with a deadline, a cancel switch and a cap on its output.

grep and glob both call ripgrep. It comes from the ``ripgrep`` wheel, which installs ``rg``
beside the Python interpreter; failing that, ``rg`` on PATH is used. Nothing is downloaded.

A run reads at most ``max_bytes`` of stdout (the rest is never buffered: rg is stopped), and
rg is stopped after ``timeout`` seconds or when the call is cancelled: SIGTERM to its process
group, then SIGKILL after a grace period. Results are plain data (:class:`RgRun`).
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.implementations.reference.results import ToolError

KILL_GRACE_S = 5.0
STDERR_CAP = 64 * 1024
CHUNK = 1 << 20


@dataclass(frozen=True)
class RgRun:
    """What one rg run produced.

    ``capped``: stdout reached the byte cap and rg was stopped (the last, torn record is
    already dropped by :func:`records`). ``timed_out`` / ``cancelled``: rg was stopped early.
    """

    stdout: bytes
    stderr: str
    returncode: int | None
    capped: bool = False
    timed_out: bool = False
    cancelled: bool = False
    #: paths rg could not enter because they pass the system's path length limit (a tree
    #: nested thousands deep): the walk's depth limit, announced by the tools
    too_deep: int = 0

    def records(self, separator: bytes) -> list[bytes]:
        """Split stdout into records; when stopped early, drop the record cut in half."""
        data = self.stdout
        if not data:
            return []
        parts = data.split(separator)
        if data.endswith(separator) or self.capped or self.timed_out or self.cancelled:
            parts.pop()
        return parts


#: Flags every search runs with: no config file (GREP-CONFIG-01, GLOB-CONFIG-01), hidden files
#: included (GREP-HIDDEN-01), .gitignore honoured inside (GREP-IGN-02, GLOB-IGN-03) and outside
#: git repositories too (GREP-IGN-03, GLOB-IGN-04), and never the machine's global gitignore.
#: rg's messages stay on: ``run`` drops the walk's (unreadable directories are skipped in
#: silence: GREP-PATH-02) and counts the paths too long to enter (``RgRun.too_deep``).
BASE_FLAGS = ("--no-config", "--hidden", "--no-require-git", "--no-ignore-global")
#: a message of the walk, not of the search: ``rg: PATH: REASON (os error N)``, or a problem in
#: an ignore file (``rg: PATH: line N: ...``)
WALK_MESSAGE = re.compile(rb"^rg: .*(?:\(os error (\d+)\)|: line \d+: .*)$", re.S)
ENAMETOOLONG = b"36"
#: what rg says (with its messages on) when its filters left nothing to search: not an error
NOTHING_SEARCHED = (b"rg: No files were searched", b"Running with --debug will show why")
#: the longest stderr line kept whole for classification (a walk message names its path)
STDERR_LINE_CAP = 1 << 20


class _Stderr:
    """rg's stderr, line by line: walk messages counted and dropped, the rest kept (capped)."""

    def __init__(self) -> None:
        self.kept = bytearray()
        self.partial = bytearray()
        self.too_deep = 0

    def feed(self, chunk: bytes) -> None:
        self.partial += chunk
        *lines, rest = self.partial.split(b"\n")
        if len(rest) > STDERR_LINE_CAP:  # keep both ends: the path's start, the reason's end
            half = STDERR_LINE_CAP // 2
            rest = rest[:half] + rest[-half:]
        self.partial = rest
        for line in lines:
            self._line(bytes(line), b"\n")

    def _line(self, line: bytes, end: bytes = b"") -> None:
        if line.startswith(NOTHING_SEARCHED):
            return
        found = WALK_MESSAGE.match(line)
        if found is not None:
            if found.group(1) == ENAMETOOLONG:
                self.too_deep += 1
            return
        if len(self.kept) < STDERR_CAP:
            self.kept += (line + end)[: STDERR_CAP - len(self.kept)]

    def close(self) -> str:
        if self.partial:
            self._line(bytes(self.partial))
            self.partial = bytearray()
        return self.kept.decode("utf-8", "replace")


def find_rg(env_path: str | None = None) -> str:
    """The rg executable: beside this interpreter (the wheel's), else on PATH.

    Raises a ToolError that says how to install it when there is none.
    """
    candidates = [
        os.path.join(os.path.dirname(sys.executable), "rg"),
        os.path.join(sysconfig.get_path("scripts"), "rg"),
    ]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("rg", path=env_path if env_path is not None else os.environ.get("PATH"))
    if found:
        return found
    raise ToolError(
        "rg_missing",
        "ripgrep (rg) was not found beside the Python interpreter "
        f"({os.path.dirname(sys.executable)}) nor on PATH. Install it with "
        "`pip install ripgrep==14.1.0` (or your system's ripgrep package); it is never downloaded "
        "automatically.",
    )


def rg_path(services: dict[str, Any]) -> str:
    """The rg executable, looked up once per implementation instance (kept in ``services``)."""
    found = services.get("rg")
    if not found:
        found = services["rg"] = find_rg()
    return str(found)


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM to rg's process group, SIGKILL if it is still there after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run(
    argv: Sequence[str],
    cwd: str,
    *,
    timeout: float,
    max_bytes: int,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    grace: float = KILL_GRACE_S,
) -> RgRun:
    """Run ``argv`` in ``cwd`` (stdin is /dev/null) under the deadline and the stdout cap.

    The deadline counts from the call, start-up included; a run that ends after it counts as
    timed out too, so a search never answers later than its timeout says.
    """
    deadline = time.monotonic() + timeout
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    out = bytearray()
    err = _Stderr()
    capped = timed_out = cancelled = False
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    try:
        open_streams = 2
        while open_streams:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            wait = min(remaining, 0.1) if cancel is not None else remaining
            for key, _ in selector.select(wait):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                elif key.data == "out":
                    out += chunk
                    if len(out) >= max_bytes:
                        del out[max_bytes:]
                        capped = True
                else:
                    err.feed(chunk)
            if capped:
                break
    finally:
        selector.close()
        if capped or timed_out or cancelled:
            _stop(proc, grace)
        proc.stdout.close()
        proc.stderr.close()
    returncode = proc.wait()
    if not (capped or cancelled) and time.monotonic() > deadline:
        timed_out = True
    return RgRun(
        stdout=bytes(out),
        stderr=err.close(),
        returncode=returncode,
        capped=capped,
        timed_out=timed_out,
        cancelled=cancelled,
        too_deep=err.too_deep,
    )
