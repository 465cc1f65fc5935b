"""bash: the account of a cut (BASH-OUT-09). ``truncated_by``, ``total_bytes``,
``total_lines``, ``output_lines`` and ``last_line_partial`` are optional: an implementation
that leaves them out passes; each one reported is held to the output the command printed.

Sizes come from the caps in force (shrunk with ``configure`` when settable); a cause of a cut is
judged only where the printed output stays within the other cap, so that one cause is certain.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    PROBE_VIEW_LINES,
    Caps,
    count_lines,
    measure,
    view_caps,
)
from pytest_agenttools.harness.assertions import bash_obs, expect_ok, precondition
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.harness.observations import BashObservation


@dataclass(frozen=True)
class Printed:
    """What a scenario's command printed, and the cause of a cut it allows (None: not cut)."""

    text: str
    cause: str | None


def _scenario(kind: str, caps: Caps) -> Printed:
    size = caps.size if caps.size is not None else 1 << 20
    lines = caps.lines if caps.lines is not None else PROBE_VIEW_LINES
    if kind == "whole":
        return Printed("one\ntwo é\nthree", None)
    if kind == "lines":  # many short lines, few bytes: over the line cap only
        count = lines * 3
        text = "".join(f"{i}\n" for i in range(1, count + 1))
        fits = caps.size is not None and measure(text, caps.unit) <= caps.size
        return Printed(text, "lines" if fits else "bytes|lines")
    if kind == "bytes":  # a few long lines: over the size cap only
        width = size // 2 + 7
        text = "".join(f"{i}:" + "y" * width + "\n" for i in range(6))
        fits = caps.lines is not None and count_lines(text) <= caps.lines
        return Printed(text, "bytes" if fits else "bytes|lines")
    # "partial": the last line, without LF, is longer than the whole view
    text = "first\n" + "z" * (size * 3)
    fits = caps.lines is not None and count_lines(text) <= caps.lines
    return Printed(text, "bytes" if fits else "bytes|lines")


def _run(tools: ToolClient, ws: Workspace, printed: Printed) -> BashObservation:
    root = ws.subdir()
    root.put("out.txt", printed.text)
    result = tools.call("bash", command="cat out.txt", timeout=120, _cwd=str(root.root))
    with precondition("BASH-EXIT-04", "cat of a file succeeds"):
        expect_ok(result)
    return bash_obs(result)


def _check(obs: BashObservation, printed: Printed) -> None:
    text = printed.text
    if obs.total_bytes is not None:
        assert obs.total_bytes == len(text.encode("utf-8")), (
            f"total_bytes is {obs.total_bytes}, but the command printed "
            f"{len(text.encode('utf-8'))} bytes"
        )
    if obs.total_lines is not None:
        assert obs.total_lines == count_lines(text), (
            f"total_lines is {obs.total_lines}, but the command printed {count_lines(text)} lines"
        )
    shown = count_lines(obs.output_head) + count_lines(obs.output_tail or "")
    if not obs.truncated:
        shown = count_lines(obs.output)
    if obs.output_lines is not None:
        assert obs.output_lines == shown, (
            f"output_lines is {obs.output_lines}, but the view shows {shown} lines"
        )
    if not obs.truncated:
        assert obs.truncated_by is None, (
            f"truncated_by is {obs.truncated_by!r} for a view that was not cut"
        )
        assert not obs.last_line_partial, "last_line_partial is true for a view that was not cut"
        return
    if obs.truncated_by is not None:
        allowed = (printed.cause or "").split("|")
        assert obs.truncated_by in allowed, (
            f"truncated_by is {obs.truncated_by!r}, but only the "
            f"{' or '.join(allowed)} cap was exceeded by what the command printed"
        )
    tail = obs.output_tail or ""
    if obs.last_line_partial is not None and tail and text.endswith(tail):
        inside = len(tail) < len(text) and text[len(text) - len(tail) - 1] != "\n"
        assert obs.last_line_partial == inside, (
            f"last_line_partial is {obs.last_line_partial}, but output_tail "
            + ("begins inside a line" if inside else "begins at the start of a line")
        )


@clause("BASH-OUT-09")
@pytest.mark.parametrize("kind", ["whole", "lines", "bytes", "partial"])
def test_cut_account_is_true(tools: ToolClient, ws: Workspace, kind: str) -> None:
    caps = view_caps(tools)
    printed = _scenario(kind, caps)
    obs = _run(tools, ws, printed)
    if kind != "whole":
        with precondition("BASH-OUT-06", "output over a cap is cut"):
            assert obs.truncated, (
                f"{len(printed.text)} bytes in {count_lines(printed.text)} lines were shown "
                f"whole (caps: {caps.size} {caps.unit}, {caps.lines} lines)"
            )
    _check(obs, printed)


@clause("BASH-OUT-09")
def test_task_output_totals_are_of_the_new_output(tools: ToolClient, ws: Workspace) -> None:
    """A poll's totals count the output it read, not the task's whole output so far."""
    if not tools.manifest.has_feature("bash.background"):
        obs = _run(tools, ws, Printed("a\nb\n", None))
        _check(obs, Printed("a\nb\n", None))
        return
    command = "printf 'a\\nb\\n'; while [ ! -e go ]; do sleep 0.05; done; printf 'c\\n'"
    start = tools.call("bash", command=command, run_in_background=True)
    started = bash_obs(start)
    with precondition("BASH-BG-01", "a background start gives a task id"):
        expect_ok(start)
        assert started.task_id, f"no task id: {started.raw}"
    seen, deadline = "", time.monotonic() + 60
    while seen != "a\nb\n":
        first = bash_obs(tools.call("task_output", task_id=started.task_id, block=False))
        with precondition("BASH-BG-02", "polls show the task's output once, as it is printed"):
            assert time.monotonic() < deadline, f"the task printed only {seen!r} in 60 s"
            assert first.running, f"the task ended before it was told to: {first.raw}"
            assert ("a\nb\n")[len(seen) :].startswith(first.output), f"polls showed {seen!r}"
        seen += first.output
        _check(first, Printed(first.output, None))
        time.sleep(0.05)
    ws.put("go", "")
    while True:
        last = bash_obs(tools.call("task_output", task_id=started.task_id, block=True, timeout=5))
        _check(last, Printed(last.output, None))
        seen += last.output
        if not last.running or time.monotonic() > deadline:
            break
    with precondition("BASH-BG-02", "the polls together show the task's output"):
        assert seen == "a\nb\nc\n", f"the polls showed {seen!r}"
