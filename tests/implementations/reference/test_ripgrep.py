"""The rg runner of the reference's grep and glob: where rg is found, how it runs, how it stops.

Real executables in temporary directories stand for the interpreter's directory, the
installation's scripts directory and PATH; the runs are real processes in their own process
group, and psutil checks that none of them outlives a stop.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from pytest_agenttools.implementations.reference import create, ripgrep
from pytest_agenttools.implementations.reference.results import ToolError

# --- finding rg -------------------------------------------------------------------------------


@dataclass
class Places:
    """The directories find_rg looks in, all empty at first (the process runs in ``elsewhere``)."""

    interpreter: Path
    scripts: Path
    on_path: Path
    elsewhere: Path


def executable(directory: Path, name: str = "rg") -> Path:
    """A real executable file named ``name`` in ``directory``."""
    found = directory / name
    found.write_text("#!/bin/sh\necho stand-in rg\n")
    found.chmod(0o755)
    return found


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Places:
    made = Places(*(tmp_path / name for name in ("python-bin", "scripts", "path", "elsewhere")))
    for directory in (made.interpreter, made.scripts, made.on_path, made.elsewhere):
        directory.mkdir()
    monkeypatch.setattr(sys, "executable", str(made.interpreter / "python"))
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(made.scripts))
    monkeypatch.setenv("PATH", str(made.on_path))
    monkeypatch.chdir(made.elsewhere)
    return made


def test_rg_beside_the_interpreter_comes_first(places: Places) -> None:
    beside = executable(places.interpreter)
    executable(places.scripts)
    executable(places.on_path)
    assert ripgrep.find_rg() == str(beside)


def test_rg_in_the_scripts_directory_comes_before_path(places: Places) -> None:
    scripts = executable(places.scripts)
    executable(places.on_path)
    executable(places.elsewhere)  # the working directory is no place to look
    assert ripgrep.find_rg() == str(scripts)


def test_only_an_executable_file_named_rg_counts(places: Places) -> None:
    (places.interpreter / "rg").mkdir()
    not_executable = places.scripts / "rg"
    not_executable.write_text("#!/bin/sh\n")
    not_executable.chmod(0o644)
    executable(places.interpreter, "RG")
    on_path = executable(places.on_path)
    assert ripgrep.find_rg() == str(on_path)


def test_rg_on_path(places: Places) -> None:
    on_path = executable(places.on_path)
    assert ripgrep.find_rg() == str(on_path)


def test_the_callers_path_replaces_the_process_path(places: Places, tmp_path: Path) -> None:
    callers = tmp_path / "callers-path"
    callers.mkdir()
    given = executable(callers)
    assert ripgrep.find_rg(env_path=str(callers)) == str(given)
    executable(places.on_path)
    assert ripgrep.find_rg(env_path=str(callers)) == str(given)


def test_a_variable_named_path_in_lower_case_is_not_path(
    places: Places, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower = tmp_path / "lower"
    lower.mkdir()
    executable(lower)
    monkeypatch.setenv("path", str(lower))
    on_path = executable(places.on_path)
    assert ripgrep.find_rg() == str(on_path)


def test_no_rg_anywhere_says_how_to_install_it(places: Places) -> None:
    executable(places.interpreter, "rg-not")
    executable(places.on_path, "RG")
    with pytest.raises(ToolError) as raised:
        ripgrep.find_rg()
    assert raised.value.code == "rg_missing"
    assert raised.value.message == (
        f"ripgrep (rg) was not found beside the Python interpreter ({places.interpreter}) nor "
        "on PATH. Install it with `pip install ripgrep==14.1.0` (or your system's ripgrep "
        "package); it is never downloaded automatically."
    )


def test_rg_is_looked_up_once_per_instance(places: Places) -> None:
    services: dict[str, object] = {}
    found = executable(places.on_path)
    assert ripgrep.rg_path(services) == str(found)
    found.unlink()
    assert ripgrep.rg_path(services) == str(found), "the first answer is kept"


def test_an_rg_already_chosen_is_used(places: Places) -> None:
    executable(places.on_path)
    chosen = executable(places.elsewhere, "my-rg")
    assert ripgrep.rg_path({"rg": str(chosen)}) == str(chosen)


# --- running rg -------------------------------------------------------------------------------


def test_a_run_returns_what_it_printed(tmp_path: Path) -> None:
    script = r"printf 'a\0b\0'; printf 'bad byte \377' >&2"
    found = ripgrep.run(["sh", "-c", script], str(tmp_path), timeout=20, max_bytes=1000)
    assert found == ripgrep.RgRun(b"a\0b\0", "bad byte \ufffd", 0)
    assert found.records(b"\0") == [b"a", b"b"]


def test_a_run_gets_the_environment_it_is_given(tmp_path: Path) -> None:
    assert "AGENTTOOLS_PROBE" not in os.environ
    env = {"AGENTTOOLS_PROBE": "given", "PATH": os.environ["PATH"]}
    script = 'printf %s "$AGENTTOOLS_PROBE"'
    found = ripgrep.run(["sh", "-c", script], str(tmp_path), timeout=20, max_bytes=100, env=env)
    assert found.stdout == b"given"


_GREP_WITH_A_PIPE_ON_STDIN = """
import json, sys
from pytest_agenttools.implementations.reference import create, ripgrep
result = create().call("grep", {"pattern": "needle"}, sys.argv[1])
print(json.dumps([ripgrep.__file__, result["details"]["observation"]["files"]]))
"""


def test_rg_never_reads_the_callers_stdin(tmp_path: Path) -> None:
    """rg searches its standard input instead of the directory when that is a pipe: a server
    whose stdin is a pipe (stdio transports) must still search the directory."""
    (tmp_path / "a.txt").write_text("needle\n")
    expected = ["a.txt"]
    here = create().call("grep", {"pattern": "needle"}, str(tmp_path))
    assert here["details"]["observation"]["files"] == expected
    # the installed kit, as this interpreter has it (from the repository root, the source
    # tree's pytest_agenttools/ would shadow an installed, non-editable kit)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", _GREP_WITH_A_PIPE_ON_STDIN, str(tmp_path)],
        input=b"",  # a pipe, closed at once: an rg reading it finds nothing there
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=True,
    )
    module, files = json.loads(done.stdout)
    assert module == ripgrep.__file__, "the child searched with this very module"
    assert files == expected


def test_output_of_exactly_the_cap_counts_as_capped(tmp_path: Path) -> None:
    """A reader that has max_bytes cannot tell whether more would follow: rg is stopped."""
    found = ripgrep.run(["sh", "-c", r"printf 'ab\0cd\0'"], str(tmp_path), timeout=20, max_bytes=6)
    assert found.capped and found.stdout == b"ab\0cd\0"
    assert not found.timed_out and not found.cancelled


# Writes 64 KiB to stderr, waits until the reader took all of it (the pipe is empty), then more.
_STDERR_AT_THE_CAP = """
import fcntl, os, struct, termios, time
os.write(2, b"e" * 65536)
while struct.unpack("i", fcntl.ioctl(2, termios.FIONREAD, b"\\0" * 4))[0]:
    time.sleep(0.001)
os.write(2, b"more")
"""


def test_stderr_is_kept_up_to_its_cap(tmp_path: Path) -> None:
    found = ripgrep.run(
        [sys.executable, "-c", _STDERR_AT_THE_CAP], str(tmp_path), timeout=20, max_bytes=100
    )
    assert found.returncode == 0
    assert found.stderr == "e" * ripgrep.STDERR_CAP


def test_a_run_that_closes_its_output_and_outlives_the_deadline_timed_out(tmp_path: Path) -> None:
    """Its streams end before the deadline, the process after it: still a timeout."""
    script = "exec >&- 2>&-; sleep 1"
    found = ripgrep.run(["sh", "-c", script], str(tmp_path), timeout=0.5, max_bytes=100)
    assert found.timed_out and not found.capped and not found.cancelled


@contextlib.contextmanager
def group_reaper(pid_file: Path) -> Iterator[None]:
    """Kill the process group named in ``pid_file`` afterwards, if a broken run left it."""
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, OSError):
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)


def live_members(group: int) -> list[psutil.Process]:
    """The processes of ``group`` that are still running, once a SIGKILL had time to land."""
    found: list[psutil.Process] = []
    for _ in range(500):
        found = []
        for process in psutil.process_iter():
            with contextlib.suppress(psutil.Error, OSError):
                if os.getpgid(process.pid) == group and process.status() != psutil.STATUS_ZOMBIE:
                    found.append(process)
        if not found:
            break
        time.sleep(0.01)  # a signal sent to a busy process is acted on when it next runs
    return found


def test_a_capped_run_stopped_past_its_deadline_is_capped_not_timed_out(tmp_path: Path) -> None:
    """The whole group ignores SIGTERM, so only SIGKILL after the grace period ends it; that
    ends the run after its deadline, yet the output cap is what stopped it."""
    pid_file = tmp_path / "pid"
    script = f"trap '' TERM; echo $$ > {pid_file}; sleep 30 & printf 0123456789; exec sleep 30"
    with group_reaper(pid_file):
        found = ripgrep.run(
            ["sh", "-c", script], str(tmp_path), timeout=2.0, max_bytes=5, grace=2.5
        )
        assert found.capped and found.stdout == b"01234"
        assert not found.timed_out and not found.cancelled
        assert found.returncode == -signal.SIGKILL
        assert live_members(int(pid_file.read_text())) == [], "the background sleep too"


def test_a_cancel_during_the_run_stops_it_cancelled(tmp_path: Path) -> None:
    """The cancel comes while the run waits on rg's streams (the child watches this thread's
    kernel wait channel, for at most 0.5 s, then says so through a FIFO). The deadline (10 s)
    is far off, so the run stops cancelled, not timed out (how soon is a matter for
    benchmarks, not for a test on a busy machine)."""
    fifo, pid_file = tmp_path / "waiting", tmp_path / "pid"
    os.mkfifo(fifo)
    cancel = threading.Event()

    def cancel_once_waiting() -> None:
        with fifo.open("rb") as waiting:
            waiting.read(1)
        cancel.set()

    watcher = threading.Thread(target=cancel_once_waiting, daemon=True)
    watcher.start()
    wchan = f"/proc/{os.getpid()}/task/{threading.get_native_id()}/wchan"
    script = (
        f"echo $$ > {pid_file}; i=0; while [ $i -lt 50 ]; do "
        f'case "$(cat {wchan} 2>/dev/null)" in *poll*|*select*) break;; esac; '
        f"sleep 0.01; i=$((i+1)); done; echo > {fifo}; exec sleep 30"
    )
    with group_reaper(pid_file):
        found = ripgrep.run(
            ["sh", "-c", script], str(tmp_path), timeout=10.0, max_bytes=100, cancel=cancel
        )
        watcher.join(timeout=5)
        assert found.cancelled and not found.timed_out
        assert live_members(int(pid_file.read_text())) == []


def test_records_of_a_cancelled_run_drop_the_torn_last_one() -> None:
    cancelled = ripgrep.RgRun(b"a\0b\0torn", "", -15, cancelled=True)
    assert cancelled.records(b"\0") == [b"a", b"b"]
    finished = ripgrep.RgRun(b"a\0b", "", 0)
    assert finished.records(b"\0") == [b"a", b"b"]


# --- stopping rg ------------------------------------------------------------------------------


def test_stopping_a_process_whose_group_is_gone(tmp_path: Path) -> None:
    proc = subprocess.Popen(["true"], cwd=tmp_path, start_new_session=True)
    proc.wait()  # reaped: its process group no longer exists
    ripgrep._stop(proc, 0.1)
    assert proc.returncode == 0


def test_stopping_a_process_the_system_will_not_let_us_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root may signal anything, so the refusal (EPERM) is what os.killpg is made to say."""
    proc = subprocess.Popen(["true"], cwd=tmp_path, start_new_session=True)
    asked: list[int] = []

    def refuse(group: int, sig: int) -> None:
        asked.append(sig)
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(ripgrep.os, "killpg", refuse)
    ripgrep._stop(proc, 5.0)  # the process ends by itself and is reaped
    assert asked == [signal.SIGTERM] and proc.returncode == 0
