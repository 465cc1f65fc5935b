"""Start a command under its own supervisor process and end its whole tree on demand.

Each command gets a small supervisor (``supervisor.py``, a separate interpreter) that is a Linux
child subreaper: descendants that double-fork or call ``setsid`` are re-parented to it, so a
timeout or an abort ends every one of them (SIGTERM, a grace period for traps, then SIGKILL). The
implementation process itself never becomes a subreaper, so a test runner hosting it in-process
is not affected. When the implementation dies, even by SIGKILL, the supervisor sees its stdin
close and ends the tree too (BASH-SHUT-05).

A keepalive command (``nohup server &``) may leave processes running when it ends: its
supervisor stays and watches them, so that shutdown still ends them (BASH-SHUT-03).

The command writes stdout and stderr to one pipe (BASH-PROC-04: the interleaving is kept); the
caller reads it.
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
from typing import Protocol

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
BASH = "/bin/bash"


@dataclass(frozen=True)
class Exit:
    """How the command ended: ``code`` for a normal exit, ``signal`` (a number) otherwise."""

    code: int | None
    signal: int | None


class CommandProcess(Protocol):
    """What a task needs of a started command (``BashOps.spawn`` returns one).

    ``output_fd`` is the read end of the command's combined output; ``finished`` is set when
    the command is over (its leader exited and its leftovers were ended or detached);
    ``stop()`` ends the whole tree, also after a keepalive command detached; ``alive`` says
    whether anything is still to be ended by ``stop()``.
    """

    output_fd: int
    leader_pid: int | None
    exit: Exit | None
    finished: threading.Event

    @property
    def alive(self) -> bool: ...

    def stop(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...

    def wait_gone(self, timeout: float | None = None) -> bool: ...


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
        tied: bool = True,
    ) -> None:
        read_end, write_end = os.pipe()
        self.output_fd = read_end
        self.leader_pid: int | None = None
        self.exit: Exit | None = None
        self.started = threading.Event()
        self.finished = threading.Event()
        self.gone = threading.Event()
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
            "tied": tied,
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
            elif word == "detached":  # a keepalive command ended; its leftovers are watched
                self.finished.set()
            elif word == "done":  # the tree is ended: the command is over
                if self.exit is not None:
                    self.finished.set()
                break
        self._proc.wait()
        if self.exit is None:
            self.exit = Exit(None, 9)
        self.started.set()
        with contextlib.suppress(OSError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        self.finished.set()
        self.gone.set()

    @property
    def alive(self) -> bool:
        return not self.gone.is_set()

    def stop(self) -> None:
        """End the command and every descendant (SIGTERM, grace, SIGKILL). Idempotent."""
        if self._stopping or self.gone.is_set():
            return
        self._stopping = True
        with contextlib.suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.write(b"stop\n")
            self._proc.stdin.flush()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def wait_gone(self, timeout: float | None = None) -> bool:
        return self.gone.wait(timeout)
