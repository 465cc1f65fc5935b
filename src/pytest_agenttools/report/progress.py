"""Progress while the suite runs (``--agenttools-progress=SECONDS``; ``agenttools run`` sets 10):
a line every SECONDS with the tests done of the total, the time elapsed, and the test that has
been running longest, so a run that waits out a hang is seen to wait, and on what; and a line
as soon as a clause fails (its first failing test), so a failure is known when it happens::

    [agenttools] 412/962 tests, 1 min 03 s; running longest: test_bash_kill.py::test_x (24 s)
    [agenttools] WRITE-BOM-01 failed, 1 min 05 s: test_write.py::test_bom_kept

It works where the reports arrive: in the one process of a serial run, on the controller under
xdist (``pytest_runtest_logstart`` and ``pytest_runtest_logreport`` are forwarded there). A
thread prints, since a serial run's process is inside a test when the line is due; it writes to
the terminal as it was before any test's output capture (a copy of the file descriptor made at
start-up), and only while it holds a lock that the hooks in which pytest writes its own progress
(the test's letter, its percentage) hold too, so its line never lands inside one of theirs.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

import pytest

from pytest_agenttools.run.selection import CLAUSE_PROPERTY

#: the plugin's name: ``-p no:agenttools-progress`` leaves it out
PROGRESS_PLUGIN = "agenttools-progress"
PREFIX = "[agenttools]"
#: the longest test id a line shows (the end is kept: the test's name and its parameters)
LONGEST_ID = 80


def duration(seconds: float) -> str:
    """``42 s``, ``1 min 03 s``, ``1 h 02 min``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def short_id(nodeid: str) -> str:
    """A test id without its directories, cut to ``LONGEST_ID`` characters from the start."""
    path, sep, rest = nodeid.partition("::")
    text = path.rsplit("/", 1)[-1] + sep + rest
    return text if len(text) <= LONGEST_ID else "..." + text[-(LONGEST_ID - 3) :]


class Progress:
    """Counts tests as they start and end; ``line(now)`` says where the run is.

    ``clock`` is the time source (a fake one in tests); ``write`` prints one line (default: to
    the terminal, see ``start``). Nothing is printed before ``interval`` seconds have passed.
    """

    def __init__(
        self,
        interval: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.last = self.started
        self.total = 0
        self.done = 0
        #: the tests running now, by node id, with when each started
        self.running: dict[str, float] = {}
        #: the clauses a test of which failed (each is said once, as it fails)
        self.failed: set[str] = set()
        self.lock = threading.Lock()
        self.write = write
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reporter: Any = None
        self._fd: int | None = None

    # --- what the line says ------------------------------------------------------------------

    def line(self, now: float) -> str:
        if not self.total and not self.done:
            return f"{PREFIX} collecting the tests, {duration(now - self.started)}"
        count = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        text = f"{PREFIX} {count} tests, {duration(now - self.started)}"
        if self.running:
            nodeid, since = min(self.running.items(), key=lambda item: (item[1], item[0]))
            text += f"; running longest: {short_id(nodeid)} ({duration(now - since)})"
        return text

    def due(self, now: float) -> str | None:
        """The line to print now, or None when the last one is less than ``interval`` old."""
        if now - self.last < self.interval:
            return None
        self.last = now
        return self.line(now)

    def tick(self) -> None:
        """Print the line if it is due (the thread calls this every second or so)."""
        with self.lock:
            text = self.due(self.clock())
            if text is not None and self.write is not None:
                self.write(text)

    # --- what the hooks count ----------------------------------------------------------------

    def collected(self, count: int) -> None:
        self.total = max(self.total, count)

    def test_started(self, nodeid: str) -> None:
        self.running[nodeid] = self.clock()

    def clause_failed(self, nodeid: str, properties: dict[str, Any]) -> str | None:
        """The line saying a clause failed, the first time one of its tests fails (a verdict
        is known from then on); None for a later failure or a test of no clause."""
        clause = properties.get(CLAUSE_PROPERTY)
        if not isinstance(clause, str) or clause in self.failed:
            return None
        self.failed.add(clause)
        now = self.clock()
        return f"{PREFIX} {clause} failed, {duration(now - self.started)}: {short_id(nodeid)}"

    def test_ended(self, nodeid: str) -> None:
        if self.running.pop(nodeid, None) is not None:
            self.done += 1

    # --- the pytest plugin -------------------------------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected(len(session.items))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.collected(len(ids))

    # The three hooks in which pytest prints a test's progress run whole under the lock
    # (outermost wrappers), so the thread's line comes between their writes, never inside.

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> Generator[None, Any, Any]:
        with self.lock:
            self.test_started(nodeid)
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, Any, Any]:
        with self.lock:
            if report.when == "teardown":
                self.test_ended(report.nodeid)
            elif getattr(report, "failed", False) and not hasattr(report, "wasxfail"):
                text = self.clause_failed(report.nodeid, dict(report.user_properties))
                if text is not None and self.write is not None:
                    self.write(text)
            return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> Generator[None, Any, Any]:
        with self.lock:
            return (yield)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.start(session.config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.stop()

    def start(self, config: pytest.Config) -> None:
        """Start the thread, printing through ``config``'s terminal (unless ``write`` is set)."""
        self.started = self.last = self.clock()
        if self.write is None:
            reporter = config.pluginmanager.get_plugin("terminalreporter")
            if reporter is None:
                return
            self._reporter = reporter
            with contextlib.suppress(OSError, ValueError, AttributeError):
                # the terminal as it is now, before any test's capture points stdout elsewhere
                self._fd = os.dup(reporter._tw._file.fileno())
            if self._fd is None:
                return
            self.write = self._to_terminal
        self._thread = threading.Thread(target=self._loop, name=PROGRESS_PLUGIN, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _loop(self) -> None:
        while not self._stop.wait(min(1.0, self.interval)):
            self.tick()

    def _to_terminal(self, text: str) -> None:
        """Write one line on a line of its own: after pytest's letters (``-q``), a new line
        first; pytest then goes on with its letters on the line after."""
        writer = self._reporter._tw
        with contextlib.suppress(Exception):
            writer.flush()
        begin = "\n" if writer.width_of_current_line else ""
        if hasattr(writer, "_current_line"):
            writer._current_line = ""  # pytest lines its percentages up from here
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._fd, f"{begin}{text}\n".encode("utf-8", "replace"))


def register(config: pytest.Config, interval: float) -> None:
    """Show progress every ``interval`` seconds, where the reports arrive (not on a worker)."""
    if hasattr(config, "workerinput") or config.pluginmanager.is_blocked(PROGRESS_PLUGIN):
        return
    config.pluginmanager.register(Progress(interval), PROGRESS_PLUGIN)
