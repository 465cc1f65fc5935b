"""A tiny supervisor process: runs one command and guarantees that its whole tree can be ended.

It runs as a separate interpreter (``python -I -S supervisor.py``, stdlib only, no package
imports) so that only this short-lived process becomes a Linux child subreaper
(``PR_SET_CHILD_SUBREAPER``): every descendant of the command that double-forks or calls
``setsid`` is re-parented to it instead of to init, so it can still find and end them. The
implementation's own process (a pytest run, an agent) never becomes a subreaper. SIGCHLD wakes
it the moment the command exits.

Starting an interpreter per command costs tens of milliseconds, so the implementation starts
one fork server (``supervisor.py --fork-server``, its stdin a SOCK_SEQPACKET socket) and asks it
for each command: a message holds the JSON header and three file descriptors (the supervisor's
stdin, its stdout and the command's output pipe); the server forks, and the child becomes that
command's supervisor. The server itself is no subreaper, holds none of the pipes' write ends
that signal the parent's death, and exits when its socket closes.

Wire (one line each): the parent writes a JSON header on stdin
``{"command", "cwd", "env", "out_fd", "keepalive", "grace", "stdin"}`` (``stdin``: ``null``
for ``/dev/null``, or ``closed``) and later may write ``stop``; the
supervisor answers on stdout ``pid N``, ``exit S`` (S as subprocess reports it: negative is a
signal), ``detached`` when a keepalive command left processes running (the supervisor then
stays, watching them, so that a later ``stop`` or the end of stdin still ends them) and finally
``done``. End of stdin (the parent died, even by SIGKILL) counts as ``stop`` (BASH-SHUT-05),
unless the header says ``"tied": false`` (a supervisor that outlives its parent: only the kit's
broken implementations ask for that).
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.02
#: longer commands do not fit in one argument of execve (MAX_ARG_STRLEN is 128 KiB)
ARGUMENT_BYTES = 100_000
LINGER_POLL_S = 0.25


def become_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (by parent links read from /proc)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill(pid: int, number: int, *, group: bool = False) -> None:
    with contextlib.suppress(OSError):
        (os.killpg if group else os.kill)(pid, number)


class Supervisor:
    def __init__(self, header: dict[str, object], wake: int) -> None:
        self.command = str(header["command"])
        self.cwd = str(header["cwd"])
        env = header.get("env")
        self.env = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else None
        out_fd = header["out_fd"]
        self.out_fd = out_fd if isinstance(out_fd, int) else int(str(out_fd))
        self.keepalive = bool(header.get("keepalive"))
        self.grace = float(str(header.get("grace", 3.0)))
        self.shell = str(header.get("shell") or "/bin/bash")
        self.tied = header.get("tied", True) is not False
        self.stdin = str(header.get("stdin") or "null")
        wrap = header.get("wrap") or []
        #: argv put before the shell (a sandbox: confine.Sandbox.argv)
        self.wrap = [str(part) for part in wrap] if isinstance(wrap, list) else []
        self.stdin_open = True
        self.wake = wake
        self.me = os.getpid()
        self.leader = 0
        self.leader_status: int | None = None

    def say(self, line: str) -> None:
        with contextlib.suppress(OSError):
            os.write(1, (line + "\n").encode())

    def start(self) -> None:
        pid = os.fork()
        if pid == 0:  # BASH-PROC-03: own session and process group, stdin from /dev/null
            try:
                os.setsid()
                if self.stdin == "closed":
                    os.close(0)
                else:
                    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                os.dup2(self.out_fd, 1)
                os.dup2(self.out_fd, 2)
                os.closerange(3, 1 << 16)
                for number in range(1, signal.NSIG):
                    with contextlib.suppress(OSError, ValueError):
                        signal.signal(number, signal.SIG_DFL)
                os.chdir(self.cwd)
                argv = [self.shell, "-c", self.command]
                if len(self.command.encode("utf-8", "surrogateescape")) > ARGUMENT_BYTES:
                    argv = [self.shell, self.script_fd()]
                argv = [*self.wrap, *argv]
                if self.env is None:
                    os.execv(argv[0], argv)
                os.execve(argv[0], argv, self.env)
            except BaseException as exc:  # report in words, then leave the fork
                reason = exc.strerror if isinstance(exc, OSError) else type(exc).__name__
                with contextlib.suppress(OSError):
                    os.write(2, f"cannot start {self.shell}: {reason}\n".encode())
            os._exit(127)
        os.close(self.out_fd)
        self.leader = pid
        self.say(f"pid {pid}")

    def script_fd(self) -> str:
        """A command too long for one argument (the kernel takes 128 KiB) is read by bash as a
        script from an in-memory file, inherited as a descriptor."""
        fd = os.memfd_create("agenttools-command", 0)
        data = memoryview(self.command.encode("utf-8", "surrogateescape"))
        while data:
            data = data[os.write(fd, data) :]
        os.lseek(fd, 0, os.SEEK_SET)
        return f"/dev/fd/{fd}"

    def reap(self) -> None:
        """Collect every exited child (adopted orphans included); note the leader's status."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.leader and self.leader_status is None:
                self.leader_status = os.waitstatus_to_exitcode(status)
                self.say(f"exit {self.leader_status}")

    def signal_all(self, number: int) -> list[int]:
        victims = descendants(self.me)
        if self.leader_status is None:
            _kill(self.leader, number, group=True)
        for pid in victims:
            _kill(pid, number)
        return victims

    def end_tree(self) -> None:
        """SIGTERM to everything, a grace period for traps, then SIGKILL until nothing is left.

        BASH-KILL-02 (SIGTERM first), BASH-KILL-03 (SIGKILL after the grace), BASH-KILL-04
        (descendants that left the group are found through the subreaper's parent links)."""
        self.signal_all(signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline:
            self.reap()
            if not descendants(self.me):
                return
            time.sleep(POLL_S)
        while True:
            self.signal_all(signal.SIGSTOP)  # freeze first, so nothing forks while we kill
            if not self.signal_all(signal.SIGKILL):
                break
            time.sleep(POLL_S)
            self.reap()
        self.reap()

    def wait_event(self, wait: float) -> bool:
        """Sleep until a child exits, a line comes on stdin, or ``wait`` s pass; True when the
        parent asked to stop (``stop``, or the end of stdin)."""
        watched = [0, self.wake] if self.stdin_open else [self.wake]
        ready, _, _ = select.select(watched, [], [], wait)
        if self.wake in ready:
            try:
                while os.read(self.wake, 512):
                    pass
            except BlockingIOError:
                pass
        if 0 not in ready:
            return False
        try:
            line = os.read(0, 4096)
        except OSError:
            line = b""
        if not line and not self.tied:  # the parent is gone, and this one stays
            self.stdin_open = False
            return False
        return not line or b"stop" in line

    def linger(self) -> bool:
        """A keepalive command ended and left processes: watch them until they end or a stop
        comes (BASH-KEEP-02, BASH-SHUT-03; BASH-SHUT-04 for escapees). True when a stop came."""
        self.say("detached")
        while descendants(self.me):
            if self.wait_event(LINGER_POLL_S):
                return True
            self.reap()
        return False

    def run(self) -> int:
        self.say(f"supervisor {self.me}")
        self.start()
        stopped = False
        while self.leader_status is None:
            if self.wait_event(1.0):
                stopped = True
                break
            self.reap()
        if not stopped and self.keepalive and descendants(self.me):
            stopped = self.linger()
        if stopped or not self.keepalive:
            self.end_tree()  # BASH-KILL-01 .. BASH-KILL-05; BASH-KEEP-01 after a normal exit
        self.reap()
        if self.leader_status is None:  # killed before it was collected
            self.leader_status = -signal.SIGKILL
            self.say(f"exit {self.leader_status}")
        self.say("done")
        return 0


def _prepare() -> int:
    """Signals and the SIGCHLD wake-up pipe of a supervisor; returns the pipe's read end."""
    become_subreaper()
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    return wake_read


def main() -> int:
    wake = _prepare()
    header_line = b""
    while not header_line.endswith(b"\n"):
        chunk = os.read(0, 1 << 20)
        if not chunk:
            return 2
        header_line += chunk
    return Supervisor(json.loads(header_line), wake).run()


def fork_server() -> int:
    """Fork one supervisor per request until the socket on stdin closes."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the children reap themselves
    server = socket.socket(fileno=0)
    fd_size = array.array("i").itemsize
    while True:
        try:
            message, ancillary, _, _ = server.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fd_size))
        except InterruptedError:
            continue
        except OSError:
            return 0
        fds = array.array("i")
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fd_size])
        if not message:
            return 0
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        if os.fork() == 0:
            try:
                server.close()
                control, status, output = fds
                os.dup2(control, 0)
                os.dup2(status, 1)
                os.close(control)
                os.close(status)
                os.setsid()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                header = json.loads(message)
                header["out_fd"] = output
                os._exit(Supervisor(header, _prepare()).run())
            except BaseException:
                os._exit(3)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    serving = sys.argv[1:] == ["--fork-server"]
    code = fork_server() if serving else main()
    sys.stdout.flush()
    os._exit(code)  # nothing to clean up: skip the interpreter's shutdown
