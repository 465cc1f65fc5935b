"""The reference's supervised processes, judged directly rather than through a bash call.

A conformance test sees a command's exit, output and survivors; it cannot see how the reference
gets there: the fork server that is restarted when it died, the supervisor interpreter started
when no fork server can serve, the descriptors a failed start must not leak. These tests pin
that policy with real processes.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from pytest_agenttools.conformance.bash_strategies import is_alive
from pytest_agenttools.implementations.reference import processes
from pytest_agenttools.implementations.reference.processes import Exit, ForkServer, Supervised
from tests.support import WAIT_S, numbers_in


def run(command: str, cwd: Path, *, keepalive: bool = False, channel: str = "pipe") -> Supervised:
    env = {"PATH": os.environ["PATH"]}
    return Supervised(command, str(cwd), env, keepalive=keepalive, grace=0.5, channel=channel)


def all_output(process: Supervised) -> bytes:
    chunks = []
    while chunk := os.read(process.output_fd, 1 << 16):
        chunks.append(chunk)
    os.close(process.output_fd)
    return b"".join(chunks)


def open_pipes() -> set[str]:
    """The pipes and sockets this process holds open, by inode: a descriptor that other threads
    close meanwhile drops out, and one leaked here shows as new whatever number it got."""
    return {
        target
        for target in descriptors_of(os.getpid()).values()
        if target.startswith(("pipe:", "socket:"))
    }


@pytest.fixture(params=["fork server", "own interpreter"])
def via(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How supervisors start: from the fork server, or (where it cannot run) each in its own
    interpreter."""
    if request.param == "own interpreter":
        monkeypatch.setattr(ForkServer, "get", classmethod(lambda cls: None))
    return str(request.param)


def test_how_a_command_ended_is_reported(tmp_path: Path, via: str) -> None:
    exited = run("echo out; echo err >&2; echo out2; exit 3", tmp_path)
    assert all_output(exited) == b"out\nerr\nout2\n", "one pipe, in the order written"
    assert exited.wait(WAIT_S) and exited.wait_gone(WAIT_S)
    assert exited.exit == Exit(3, None) and not exited.alive
    assert exited.leader_pid is not None and exited.leader_pid > 0
    assert exited.supervisor_pid not in (0, os.getpid(), exited.leader_pid)
    killed = run("kill -TERM $$", tmp_path)
    assert killed.wait_gone(WAIT_S) and killed.exit == Exit(None, signal.SIGTERM)
    os.close(killed.output_fd)


def test_stop_ends_the_whole_tree_once(tmp_path: Path, via: str) -> None:
    process = run("trap '' TERM; sleep 300 & echo $! > pid; wait", tmp_path)
    (child,) = numbers_in(tmp_path / "pid", 1)
    assert process.alive and not process.wait(0.01) and not process.wait_gone(0.01)
    process.stop()
    process.stop()  # idempotent
    assert process.wait_gone(WAIT_S) and not process.alive
    assert process.exit is not None and process.exit.signal == signal.SIGKILL
    assert not is_alive(child), "the TERM-ignoring child outlived stop()"
    process.stop()  # after the end: nothing to do, no error
    os.close(process.output_fd)


def test_a_keepalive_command_is_over_before_its_leftovers_are(tmp_path: Path) -> None:
    process = run("sleep 30 >/dev/null 2>&1 & echo $! > pid", tmp_path, keepalive=True)
    (leftover,) = numbers_in(tmp_path / "pid", 1)
    assert process.wait(WAIT_S) and process.exit == Exit(0, None)
    assert process.alive and is_alive(leftover), "a keepalive command's leftovers run on"
    process.stop()
    assert process.wait_gone(WAIT_S) and not is_alive(leftover)
    os.close(process.output_fd)


def test_the_fork_server_runs_in_its_own_session_and_is_restarted_when_it_died(
    tmp_path: Path,
) -> None:
    server = ForkServer.get()
    assert server is not None and server.owner == os.getpid()
    assert os.getsid(server.proc.pid) == server.proc.pid, "a host's terminal signals reach it"
    assert ForkServer.get() is server, "one fork server per process"
    server.proc.kill()
    server.proc.wait()
    again = ForkServer.get()
    assert again is not None and again is not server and again.proc.poll() is None
    process = run("echo again", tmp_path)
    assert all_output(process) == b"again\n" and process.wait_gone(WAIT_S)


def test_a_fork_server_of_another_process_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forked child inherits the parent's server object, not the right to use it."""
    server = ForkServer.get()
    assert server is not None
    monkeypatch.setattr(server, "owner", server.owner + 1)  # as a forked child sees it
    mine = ForkServer.get()
    try:
        assert mine is not None and mine is not server and mine.owner == os.getpid()
    finally:
        if mine is not None and mine is not server:
            mine.proc.kill()
            mine.proc.wait()
            mine.sock.close()
        ForkServer._current = server


def test_a_refused_start_falls_back_without_leaking_descriptors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("true", tmp_path).wait_gone(WAIT_S)  # the fork server is up before counting
    monkeypatch.setattr(ForkServer, "start", lambda self, header, fds: False)
    before = open_pipes()
    process = run("echo fallback; exit 4", tmp_path)
    assert all_output(process) == b"fallback\n"
    assert process.wait_gone(WAIT_S) and process.exit == Exit(4, None)
    assert open_pipes() - before == set(), "the pipes of the refused start must be closed"


def test_an_unstartable_fork_server_means_supervisor_interpreters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_server(self: ForkServer) -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(ForkServer, "_current", None)
    monkeypatch.setattr(ForkServer, "__init__", no_server)
    assert ForkServer.get() is None
    process = run("echo $$ > pid; sleep 30", tmp_path)
    assert process.started.wait(WAIT_S)
    assert numbers_in(tmp_path / "pid", 1) == [process.leader_pid]
    assert process._proc is not None and process.supervisor_pid == process._proc.pid
    assert os.getsid(process.supervisor_pid) == process.supervisor_pid
    process.stop()
    assert process.wait_gone(WAIT_S) and process.exit == Exit(None, signal.SIGTERM)
    os.close(process.output_fd)


def test_output_through_a_socket_keeps_the_interleaving(tmp_path: Path) -> None:
    """What a Node host's child processes get (the alternatives' channel)."""
    process = run("echo a; echo b >&2; echo c", tmp_path, channel="socket")
    assert all_output(process) == b"a\nb\nc\n" and process.wait_gone(WAIT_S)


def fresh_fork_server() -> ForkServer:
    """The process's fork server, started anew in the calling test (its start is under test)."""
    old = ForkServer.get()
    assert old is not None
    old.proc.kill()
    old.proc.wait()
    server = ForkServer.get()
    assert server is not None and server is not old
    return server


def descriptors_of(pid: int) -> dict[int, str]:
    """What each open descriptor of ``pid`` points to; one closed while this looks (a process
    that is still starting opens and closes files) is left out."""
    held = {}
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            held[int(fd.name)] = os.readlink(fd)
        except FileNotFoundError:
            continue
    return held


def argv_of(pid: int) -> list[bytes]:
    """A process's argv. Popen returns once exec has begun, and the kernel shows the new argv
    only a moment later: until then /proc gives an empty one."""
    for _ in range(int(WAIT_S / 0.01)):
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        if raw:
            return raw.split(b"\0")
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never showed its argv")


def inheritable_pipe() -> tuple[int, int, str]:
    """A pipe a careless child would inherit; its target as /proc shows it."""
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    return read_end, write_end, os.readlink(f"/proc/self/fd/{write_end}")


def test_supervisors_are_isolated_from_the_host(tmp_path: Path, via: str) -> None:
    """No host descriptor is held open (a reader of the host would never see end of file), the
    host's stderr gets no noise, and the host's Python settings do not apply (-I -S)."""
    read_end, write_end, pipe = inheritable_pipe()
    try:
        if via == "fork server":
            pid = fresh_fork_server().proc.pid  # started while the pipe is open
            assert descriptors_of(pid)[0].startswith("socket:"), "requests come on its stdin"
            assert descriptors_of(pid)[1] == "/dev/null", "the host's stdout may be a protocol"
            process = None
        else:
            process = run("sleep 30", tmp_path)
            assert process._proc is not None
            pid = process._proc.pid
        held = descriptors_of(pid)
        assert held[2] == "/dev/null", f"stderr of the supervisor: {held[2]}"
        assert pipe not in held.values(), "the host's inheritable pipe is held open"
        argv = argv_of(pid)
        assert argv[1:3] == [b"-I", b"-S"], argv
    finally:
        os.close(read_end)
        os.close(write_end)
    if process is not None:
        process.stop()
        assert process.wait_gone(WAIT_S)
        os.close(process.output_fd)


def test_a_command_as_long_as_an_argument_may_be_goes_through_the_fork_server(
    tmp_path: Path,
) -> None:
    """A request is one message, however long: bash -c takes a command of up to 128 KiB."""
    command = "echo ok #" + "x" * 120_000
    fresh_fork_server()
    process = run(command, tmp_path)
    assert process._proc is None, "served by the fork server, not by the fallback"
    assert all_output(process) == b"ok\n"
    assert process.wait_gone(WAIT_S) and process.exit == Exit(0, None)


def test_a_supervisor_that_cannot_start_leaks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_start(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(ForkServer, "get", classmethod(lambda cls: None))
    monkeypatch.setattr(processes.subprocess, "Popen", cannot_start)
    before = open_pipes()
    with pytest.raises(OSError, match="Resource temporarily unavailable"):
        run("true", tmp_path)
    assert open_pipes() - before == set()


class FailingWriter:
    """A supervisor's stdin as stop() may find it: closed, or with no reader left."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def write(self, data: bytes) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error


@pytest.mark.parametrize(
    "error", [ValueError("I/O operation on closed file"), BrokenPipeError(32, "Broken pipe")]
)
def test_stop_on_a_supervisor_that_is_gone_unseen_raises_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    process = run("sleep 300", tmp_path)
    monkeypatch.setattr(process, "_stdin", FailingWriter(error))
    process.stop()
    monkeypatch.undo()  # the real stdin again, for a real stop
    process._stopping = False
    process.stop()
    assert process.wait_gone(WAIT_S)
    os.close(process.output_fd)
