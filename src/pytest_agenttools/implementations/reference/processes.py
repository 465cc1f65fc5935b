"""Start a command under its own supervisor process and end its whole tree on demand.

Each command gets a small supervisor (``supervisor.py``: forked by a per-process fork server, or
a separate interpreter where that cannot run) that is a Linux child subreaper: descendants that
double-fork or call ``setsid`` are re-parented to it, so a timeout or an abort ends every one of
them (SIGTERM, a grace period for traps, then SIGKILL). The
implementation process itself never becomes a subreaper, so a test runner hosting it in-process
is not affected. When the implementation dies, even by SIGKILL, the supervisor sees its stdin
close and ends the tree too (BASH-SHUT-05).

A keepalive command (``nohup server &``) may leave processes running when it ends: its
supervisor stays and watches them, so that shutdown still ends them (BASH-SHUT-03).

The command writes stdout and stderr to one pipe (BASH-PROC-04: the interleaving is kept); the
caller reads it.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
BASH = "/bin/bash"


def find_bash() -> str | None:
    """The bash commands run with (BASH-SHELL-01): ``/bin/bash``, else ``bash`` on PATH; None
    when there is none (the call is then refused: a command never runs in another shell)."""
    if os.access(BASH, os.X_OK):
        return BASH
    return shutil.which("bash")


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


class ForkServer:
    """The supervisor fork server of this process (``supervisor.py --fork-server``).

    Started on first use and shared by every reference instance of the process (it keeps no
    state between requests); restarted if it died; None where it cannot run (then every
    command starts a supervisor interpreter of its own).
    """

    _current: ForkServer | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", SUPERVISOR, "--fork-server"],
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.owner = os.getpid()
        self.send_lock = threading.Lock()

    @classmethod
    def get(cls) -> ForkServer | None:
        with cls._lock:
            server = cls._current
            if server is None or server.proc.poll() is not None or server.owner != os.getpid():
                try:
                    server = cls._current = ForkServer()
                except OSError:
                    return None
            return server

    def start(self, header: bytes, fds: list[int]) -> bool:
        """Ask for a supervisor with ``fds`` as its stdin, stdout and the command's output."""
        try:
            with self.send_lock:
                self.sock.sendmsg(
                    [header], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                )
        except OSError:
            return False
        return True


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
        channel: str = "pipe",
        stdin: str = "null",
        wrap: Sequence[str] = (),
        shell: str | None = None,
    ) -> None:
        self.channel = channel
        self.leader_pid: int | None = None
        self.exit: Exit | None = None
        self.started = threading.Event()
        self.finished = threading.Event()
        self.gone = threading.Event()
        self._stopping = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._supervisor_pid = 0
        header = {
            "command": command,
            "cwd": cwd,
            "env": dict(env) if env is not None else None,
            "keepalive": keepalive,
            "grace": grace,
            "shell": shell or find_bash() or BASH,
            "tied": tied,
            "stdin": stdin,
            "wrap": list(wrap),
        }
        if not self._from_server(header):
            self._own_interpreter(header)
        threading.Thread(target=self._watch, daemon=True, name="agenttools-supervisor").start()

    def _from_server(self, header: dict[str, Any]) -> bool:
        server = ForkServer.get()
        if server is None:
            return False
        control_r, control_w = os.pipe()
        status_r, status_w = os.pipe()
        output_r, output_w = self._output_channel()
        ok = server.start(json.dumps(header).encode(), [control_r, status_w, output_w])
        for fd in (control_r, status_w, output_w):
            os.close(fd)
        if not ok:
            for fd in (control_w, status_r, output_r):
                os.close(fd)
            return False
        self.output_fd = output_r
        self._stdin: IO[bytes] = os.fdopen(control_w, "wb")
        self._stdout: IO[bytes] = os.fdopen(status_r, "rb")
        return True

    def _own_interpreter(self, header: dict[str, Any]) -> None:
        read_end, write_end = self._output_channel()
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
        self.output_fd = read_end
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin = self._proc.stdin
        self._stdout = self._proc.stdout
        self._stdin.write((json.dumps({**header, "out_fd": write_end}) + "\n").encode())
        self._stdin.flush()

    def _output_channel(self) -> tuple[int, int]:
        """The command's stdout and stderr: one pipe, or one end of a socket pair (what Node's
        child processes get); either keeps the interleaving (BASH-PROC-04)."""
        if self.channel == "socket":
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            ours.shutdown(socket.SHUT_WR)
            theirs.shutdown(socket.SHUT_RD)
            return ours.detach(), theirs.detach()
        return os.pipe()

    @property
    def supervisor_pid(self) -> int:
        return self._supervisor_pid or (self._proc.pid if self._proc else 0)

    def _watch(self) -> None:
        for raw in self._stdout:
            word, _, value = raw.decode().strip().partition(" ")
            if word == "supervisor":
                self._supervisor_pid = int(value)
            elif word == "pid":
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
        for _ in self._stdout:  # to end of file: the supervisor has exited
            pass
        if self._proc is not None:
            self._proc.wait()
        if self.exit is None:
            self.exit = Exit(None, 9)
        self.started.set()
        with contextlib.suppress(OSError):
            self._stdin.close()
        with contextlib.suppress(OSError):
            self._stdout.close()
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
            self._stdin.write(b"stop\n")
            self._stdin.flush()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def wait_gone(self, timeout: float | None = None) -> bool:
        return self.gone.wait(timeout)
