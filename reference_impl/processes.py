"""Start a command under its own supervisor process and end its whole tree on demand.

Each command gets a small supervisor (``supervisor.py``, a separate interpreter) that is a Linux
child subreaper: descendants that double-fork or call ``setsid`` are re-parented to it, so a
timeout or an abort ends every one of them (SIGTERM, a grace period for traps, then SIGKILL). The
implementation process itself never becomes a subreaper, so a test runner hosting it in-process
is not affected. When the implementation dies, the supervisor sees its stdin close and ends the
tree too.

The command writes stdout and stderr to one pipe (interleaving kept); the caller reads it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
BASH = "/bin/bash"


@dataclass(frozen=True)
class Exit:
    """How the command ended: ``code`` for a normal exit, ``signal`` (a number) otherwise."""

    code: int | None
    signal: int | None


class Supervised:
    """One running command. ``stop()`` ends its tree; ``finished`` is set when all is done."""

    def __init__(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str] | None,
        *,
        keepalive: bool,
        grace: float,
    ) -> None:
        read_end, write_end = os.pipe()
        self.output_fd = read_end
        self.leader_pid: int | None = None
        self.exit: Exit | None = None
        self.started = threading.Event()
        self.finished = threading.Event()
        self._stopping = False
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", SUPERVISOR],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_end,),
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        header = {
            "command": command,
            "cwd": cwd,
            "env": dict(env) if env is not None else None,
            "out_fd": write_end,
            "keepalive": keepalive,
            "grace": grace,
            "shell": BASH,
        }
        assert self._proc.stdin is not None
        self._proc.stdin.write((json.dumps(header) + "\n").encode())
        self._proc.stdin.flush()
        threading.Thread(target=self._watch, daemon=True, name="agenttools-supervisor").start()

    @property
    def supervisor_pid(self) -> int:
        return self._proc.pid

    def _watch(self) -> None:
        assert self._proc.stdout is not None
        for raw in self._proc.stdout:
            word, _, value = raw.decode().strip().partition(" ")
            if word == "pid":
                self.leader_pid = int(value)
                self.started.set()
            elif word == "exit":
                status = int(value)
                self.exit = Exit(status, None) if status >= 0 else Exit(None, -status)
            elif word == "done":
                break
        self._proc.wait()
        if self.exit is None:
            self.exit = Exit(None, 9)
        self.started.set()
        with contextlib.suppress(OSError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        self.finished.set()

    def stop(self) -> None:
        """End the command and every descendant (SIGTERM, grace, SIGKILL). Idempotent."""
        if self._stopping or self.finished.is_set():
            return
        self._stopping = True
        with contextlib.suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.write(b"stop\n")
            self._proc.stdin.flush()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)
