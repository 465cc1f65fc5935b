"""What a run prints while it runs and before the failures: progress lines (driven by a fake
clock, never by waiting), the summary first, and short tracebacks without the kit's frames."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_agenttools.harness import tracebacks
from pytest_agenttools.report.progress import PROGRESS_PLUGIN, Progress, duration, short_id

pytest_plugins = ["pytester"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def teardown(nodeid: str) -> Any:
    return SimpleNamespace(when="teardown", nodeid=nodeid)


def drive(progress: Progress, hook: str, **kwargs: Any) -> None:
    """Call one of the plugin's wrapper hooks as pluggy would, with nothing inside."""
    gen = getattr(progress, hook)(**kwargs)
    next(gen)
    assert progress.lock.locked(), f"{hook} must hold the lock while pytest writes"
    with pytest.raises(StopIteration):
        gen.send(None)
    assert not progress.lock.locked()


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (0, 9.9, 59, 63, 600, 3725)] == [
        "0 s",
        "9 s",
        "59 s",
        "1 min 03 s",
        "10 min 00 s",
        "1 h 02 min",
    ]
    assert short_id("bash/test_bash_kill.py::test_x[a]") == "test_bash_kill.py::test_x[a]"
    long = short_id("test_read.py::test_y[" + "p" * 200 + "]")
    assert len(long) == 80 and long.startswith("...") and long.endswith("p]")


def test_a_line_every_interval_with_counts_and_the_longest_running_test() -> None:
    clock, lines = Clock(), list[str]()
    progress = Progress(10, clock=clock, write=lines.append)
    progress.tick()
    clock.now += 9.5
    progress.tick()
    assert lines == [], "nothing before the first interval"
    clock.now += 1
    progress.tick()
    assert lines == ["[agenttools] collecting the tests, 10 s"]
    progress.collected(962)
    drive(progress, "pytest_runtest_logstart", nodeid="test_a.py::test_slow", location=None)
    clock.now += 2
    drive(progress, "pytest_runtest_logstart", nodeid="test_b.py::test_quick", location=None)
    drive(progress, "pytest_runtest_logreport", report=teardown("test_b.py::test_quick"))
    clock.now += 5
    progress.tick()
    assert len(lines) == 1, "the next line only an interval after the last"
    clock.now += 56
    progress.tick()
    assert lines[-1] == (
        "[agenttools] 1/962 tests, 1 min 13 s; running longest: test_a.py::test_slow (1 min 03 s)"
    )
    drive(progress, "pytest_runtest_logreport", report=teardown("test_a.py::test_slow"))
    drive(progress, "pytest_runtest_logfinish", nodeid="test_a.py::test_slow", location=None)
    assert progress.line(clock.now) == "[agenttools] 2/962 tests, 1 min 13 s"


def test_only_a_teardown_ends_a_test() -> None:
    progress = Progress(10, clock=Clock(), write=lambda _: None)
    progress.test_started("t.py::t")
    call = SimpleNamespace(when="call", nodeid="t.py::t")
    drive(progress, "pytest_runtest_logreport", report=call)
    assert progress.done == 0 and "t.py::t" in progress.running
    progress.test_ended("t.py::t")
    progress.test_ended("t.py::t")
    assert progress.done == 1, "a test counts once"


def test_the_line_starts_a_line_of_its_own_after_pytests_letters() -> None:
    read, write = os.pipe()
    writer = SimpleNamespace(width_of_current_line=5, _current_line="..F..", flush=lambda: None)
    progress = Progress(10, clock=Clock())
    progress._reporter = SimpleNamespace(_tw=writer)
    progress._fd = write
    try:
        progress._to_terminal("[agenttools] 5/9 tests, 10 s")
        writer.width_of_current_line = 0
        progress._to_terminal("[agenttools] 6/9 tests, 20 s")
    finally:
        os.close(write)
    with os.fdopen(read, encoding="utf-8") as stream:
        said = stream.read()
    assert said == "\n[agenttools] 5/9 tests, 10 s\n[agenttools] 6/9 tests, 20 s\n"
    assert writer._current_line == "", "pytest's percentages line up from the new line"


def test_progress_is_off_unless_asked_for(pytester: pytest.Pytester) -> None:
    plain = pytester.parseconfigure()
    assert plain.pluginmanager.get_plugin(PROGRESS_PLUGIN) is None
    asked = pytester.parseconfigure("--agenttools-progress=10")
    assert isinstance(asked.pluginmanager.get_plugin(PROGRESS_PLUGIN), Progress)
    none = pytester.parseconfigure("--agenttools-progress=0")
    assert none.pluginmanager.get_plugin(PROGRESS_PLUGIN) is None
    with pytest.raises(pytest.UsageError, match="number of seconds"):
        pytester.parseconfigure("--agenttools-progress=soon")


FAILING = """
from pytest_agenttools.harness.assertions import expect_ok
from pytest_agenttools.harness.contract import ToolResult
from pytest_agenttools.harness.markers import clause

@clause("READ-DIR-01")
def test_fails():
    expect_ok(ToolResult(({"type": "text", "text": "no"},), is_error=True))
"""


def test_summary_first_comes_before_the_failures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(FAILING)
    result = pytester.runpytest("--agenttools-summary-first", "-p", "no:cacheprovider")
    out = result.stdout.lines
    levels = [i for i, line in enumerate(out) if line.split()[:1] == ["level"]]
    failures = [i for i, line in enumerate(out) if "FAILURES" in line]
    assert len(levels) == 2 and failures, "\n".join(out)
    assert levels[0] < failures[0] < levels[1]
    assert any("again after the failures" in line for line in out[: failures[0]])
    plain = pytester.runpytest("-p", "no:cacheprovider").stdout.lines
    assert sum(line.split()[:1] == ["level"] for line in plain) == 1


@pytest.mark.parametrize(
    ("args", "shown"),
    [(("--tb=short",), False), (("--tb=line",), False), (("--tb=long",), True), ((), True)],
)
def test_short_tracebacks_leave_out_the_kits_frames(
    pytester: pytest.Pytester, args: tuple[str, ...], shown: bool
) -> None:
    pytester.makepyfile(FAILING)
    before = tracebacks.kit_frame()
    try:
        result = pytester.runpytest(*args, "-p", "no:cacheprovider")
    finally:
        tracebacks.hide_kit_frames(before)
    text = result.stdout.str()
    assert "expected success" in text, text
    assert ("harness/assertions.py" in text) == shown, text


def test_a_clause_is_named_when_its_first_test_fails() -> None:
    clock, lines = Clock(), list[str]()
    progress = Progress(10, clock=clock, write=lines.append)
    clause = [("agenttools_clause", "WRITE-BOM-01")]

    def failed(nodeid: str, **more: Any) -> Any:
        return SimpleNamespace(
            when="call", nodeid=nodeid, failed=True, user_properties=clause, **more
        )

    clock.now += 12
    drive(progress, "pytest_runtest_logreport", report=failed("t/test_w.py::test_a"))
    drive(progress, "pytest_runtest_logreport", report=failed("t/test_w.py::test_b"))
    drive(progress, "pytest_runtest_logreport", report=failed("t/test_w.py::test_c", wasxfail=""))
    assert lines == ["[agenttools] WRITE-BOM-01 failed, 12 s: test_w.py::test_a"], (
        "said once, at its first failure; an expected failure is none"
    )
