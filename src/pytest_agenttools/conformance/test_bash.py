"""bash: arguments, timeouts, process setup, how a command ended, and what the text carries.

Behaviour is judged on the observation (``details.observation``), the files a command leaves
and the process table; the model-facing text only in the ``BASH-PRES-*`` clauses, neutrally.
"""

from __future__ import annotations

import math
import os
import re
import time
from typing import Any

import psutil
import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    HUGE_TIMEOUT_S,
    complete,
    expect_no_survivor,
    fast,
    shown_output,
    wait_for_file,
)
from pytest_agenttools.harness.assertions import (
    bash_obs,
    expect_error,
    expect_in_order,
    expect_names_argument,
    expect_names_path,
    expect_number,
    expect_ok,
    masked_text,
    precondition,
    shown,
)
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.markers import clause, long

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
BAD_ARGUMENTS = [
    ({}, "command"),
    ({"command": 7}, "command"),
    ({"command": ["echo", "x"]}, "command"),
    ({"command": ""}, "command"),
    ({"command": "   "}, "command"),
    ({"command": "touch ran", "run_in_background": "yes"}, "run_in_background"),
    ({"command": "touch ran", "cwd_override": "/"}, "cwd_override"),
]
BAD_IDS = ["missing", "int", "list", "empty", "blank", "background-string", "unknown"]


def expect_refused(result: Any, ws: Workspace, what: str) -> None:
    """An error result whose observation says nothing ran, and no trace of the command.

    A command that was started and then ended (timed out, aborted) was not refused, whether or
    not it got as far as leaving its trace: a timeout that fires at once must fail every run,
    not only the runs in which the command was quicker than the kill."""
    expect_error(result, what=what)
    obs = bash_obs(result)
    assert not obs.timed_out and not obs.aborted, (
        f"{what}: the command was started and then ended (timed_out={obs.timed_out}, "
        f"aborted={obs.aborted}), not refused: {shown(result)}"
    )
    assert not obs.running and obs.exit_code is None and not obs.background, (
        f"{what}: a refused call's observation must say that nothing ran: {dict(obs.raw)}"
    )
    assert not ws.exists("ran"), f"{what}: the call was refused but the command ran anyway"


@clause("BASH-ARG-02")
@pytest.mark.parametrize(("arguments", "name"), BAD_ARGUMENTS, ids=BAD_IDS)
def test_bad_arguments(
    tools: ToolClient, ws: Workspace, arguments: dict[str, Any], name: str
) -> None:
    expect_refused(tools.call("bash", **arguments), ws, f"bad {name}")


@clause("BASH-BG-07")
def test_background_refused_when_undeclared(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    if manifest.has_feature("bash.background"):
        pytest.skip("bash.background is declared: BASH-BG-01 judges run_in_background")
    result = tools.call("bash", command="touch ran", run_in_background=True, timeout=10)
    what = "run_in_background with bash.background undeclared"
    expect_refused(result, ws, what)
    deadline = time.monotonic() + scaled(
        1.0
    )  # a task started anyway creates the file a moment later
    while time.monotonic() < deadline and not ws.exists("ran"):
        time.sleep(0.05)
    assert not ws.exists("ran"), f"{what}: the call was refused but the command ran later"


@clause("BASH-PRES-01")
@pytest.mark.parametrize(("arguments", "name"), BAD_ARGUMENTS, ids=BAD_IDS)
def test_refusal_names_the_argument(
    tools: ToolClient, manifest: Manifest, arguments: dict[str, Any], name: str
) -> None:
    result = tools.call("bash", **arguments)
    with precondition("BASH-ARG-02", f"a bad {name} must be refused for the refusal to be judged"):
        expect_error(result)
    expect_names_argument(result, manifest, "bash", name)


@clause("BASH-PRES-01")
def test_refused_timeout_names_the_argument(tools: ToolClient, manifest: Manifest) -> None:
    result = tools.call("bash", command="true", timeout="abc")
    if result.is_error:  # replacing a bad timeout by the default is correct too (no text then)
        expect_names_argument(result, manifest, "bash", "timeout")
    else:
        assert bash_obs(result).timeout_s, "an accepted call must say the timeout it applied"


@clause("BASH-PRES-01")
def test_missing_directory_is_named(tools: ToolClient, ws: Workspace) -> None:
    missing = str(ws.root / "gone-away")
    result = tools.call("bash", command="true", _cwd=missing)
    with precondition("BASH-CWD-02", "a missing cwd must be refused for the refusal to be judged"):
        expect_error(result)
    expect_names_path(result, missing, str(ws.root))


# --- timeouts -------------------------------------------------------------------------------


def _declared(tools: ToolClient, name: str) -> float | None:
    limit = tools.limit(name)
    return float(limit.value) if limit else None


BAD_TIMEOUTS = [0, -1, -0.5, "10", "abc", "", 1e300, HUGE_TIMEOUT_S, "over-max"]
BAD_TIMEOUT_IDS = [
    "zero",
    "negative",
    "negative-float",
    "numeric-string",
    "string",
    "empty-string",
    "huge-float",
    "huge-int",
    "over-max",
]


@clause("BASH-TIMEOUT-03")
@pytest.mark.parametrize("timeout", BAD_TIMEOUTS, ids=BAD_TIMEOUT_IDS)
def test_bad_timeout_refused_or_replaced(tools: ToolClient, ws: Workspace, timeout: Any) -> None:
    default = _declared(tools, "bash.default_timeout_s")
    cap = _declared(tools, "bash.max_timeout_s")
    if timeout == "over-max":  # just over a declared cap; with none, far beyond any sane one
        timeout = cap + 1 if cap else HUGE_TIMEOUT_S * 10
    result = tools.call("bash", command="touch ran", timeout=timeout)
    if result.is_error:
        expect_refused(result, ws, f"timeout={timeout!r}")
        return
    applied = bash_obs(result).timeout_s
    assert ws.exists("ran"), f"timeout={timeout!r} was accepted but the command did not run"
    assert applied is not None and math.isfinite(applied) and applied > 0, (
        f"timeout={timeout!r} was accepted; the observation must give the positive, finite "
        f"timeout that applied, got timeout_s={applied!r}"
    )
    if cap:
        assert applied <= cap, f"timeout={timeout!r} applied as {applied} s, over the cap {cap} s"
    number = isinstance(timeout, int | float)
    if number and timeout > 0:  # above the cap: clamped (or, with no cap, as asked)
        if cap:
            assert applied == cap, f"timeout={timeout!r} should be clamped to {cap}, got {applied}"
        elif cap is None:
            assert applied < timeout, (
                f"timeout={timeout!r} applied as asked: with no declared bash.max_timeout_s the "
                "implementation must refuse or clamp it (declare bash.max_timeout_s = 0 for no cap)"
            )
    elif timeout == "10":  # a numeric string may be read as its number, or replaced
        assert applied in (10.0, default) or default is None, f"timeout='10' applied as {applied}"
    elif default is not None:
        assert applied == default, (
            f"timeout={timeout!r} replaced by {applied} s; the declared default is {default} s"
        )


@clause("BASH-TIMEOUT-04")
@long(1)
def test_command_without_timeout_is_bounded(tools: ToolClient, ws: Workspace) -> None:
    default = _declared(tools, "bash.default_timeout_s")
    cap = _declared(tools, "bash.max_timeout_s")
    obs = bash_obs(expect_ok(tools.call("bash", command="true")))
    assert obs.timeout_s is not None and math.isfinite(obs.timeout_s) and obs.timeout_s > 0, (
        "a command that names no timeout must still run under a finite one (the observation's "
        f"timeout_s); got {obs.timeout_s!r}"
    )
    if default is not None:
        assert default > 0, f"bash.default_timeout_s must be above 0, is {default}"
        assert obs.timeout_s == default, f"applied {obs.timeout_s} s, declared default {default} s"
    if cap:
        assert obs.timeout_s <= cap, f"the default {obs.timeout_s} s is above the cap {cap} s"
    applied = tools.configure(**{"bash.default_timeout_s": 1})
    if "bash.default_timeout_s" not in applied:
        return  # enforcement of a timeout is BASH-TO-02; the long default is not waited for
    fast(tools, 0.3)
    started = time.monotonic()
    _, obs, _ = complete(tools, tools.call("bash", command="echo $$ >> pids; sleep 30"))
    assert obs.timed_out, f"the default timeout of 1 s did not end the command: {dict(obs.raw)}"
    assert obs.timeout_s == 1, f"the observation should say the default applied: {obs.timeout_s}"
    assert time.monotonic() - started < scaled(15), "the command ran far beyond its default timeout"
    expect_no_survivor(ws.root, "default timeout")


@clause("BASH-TIMEOUT-04")
def test_requested_timeout_is_capped(tools: ToolClient, ws: Workspace) -> None:
    cap = _declared(tools, "bash.max_timeout_s")
    result = tools.call("bash", command="touch ran", timeout=HUGE_TIMEOUT_S)
    if result.is_error:
        expect_refused(result, ws, f"timeout={HUGE_TIMEOUT_S}")
        return
    applied = bash_obs(result).timeout_s
    assert applied is not None and math.isfinite(applied), f"timeout_s={applied!r}"
    if cap == 0:  # declared: no tool-level cap, a finite request applies as asked
        assert applied == HUGE_TIMEOUT_S, f"with no cap, {HUGE_TIMEOUT_S} s applied as {applied}"
    elif cap is not None:
        assert applied == cap, f"{HUGE_TIMEOUT_S} s should be clamped to {cap} s, got {applied}"
    else:
        assert applied < HUGE_TIMEOUT_S, (
            f"a timeout of {HUGE_TIMEOUT_S} s applied as asked: the implementation has no cap on "
            "timeouts, or does not declare it (declare bash.max_timeout_s; 0 says: no cap)"
        )
        again = tools.call("bash", command="true", timeout=applied * 2)
        if not again.is_error:
            assert bash_obs(again).timeout_s == applied, (
                f"a cap of {applied} s was inferred, but {applied * 2} s applied as "
                f"{bash_obs(again).timeout_s}"
            )


# --- processes ------------------------------------------------------------------------------


def _running_pid(tools: ToolClient, ws: Workspace, command: str) -> tuple[int, Any]:
    pending = tools.submit("bash", command=command, timeout=30)
    pids = wait_for_file(ws.file("pid"))
    assert pids, f"the command never wrote its pid; result: {pending.result(scaled(30))!r}"
    return pids[0], pending


def _descends_from(pid: int, ancestor: int) -> bool:
    try:
        return pid == ancestor or any(p.pid == ancestor for p in psutil.Process(pid).parents())
    except psutil.Error:
        return True  # gone meanwhile: not a member any more


def _stdin_of(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        return None


@clause("BASH-PROC-03")
def test_own_group_and_stdin(tools: ToolClient, ws: Workspace) -> None:
    pid, pending = _running_pid(
        tools,
        ws,
        "echo $$ > pid; cat; echo read-done > log; while [ ! -e go ]; do sleep 0.05; done",
    )
    try:
        # `cat` on a closed or empty stdin ends in milliseconds; 5 s is room for a loaded machine
        deadline = time.monotonic() + scaled(5)
        while not ws.exists("log") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ws.exists("log"), "`cat` did not end at once: the command's stdin is not at EOF"
        group = os.getpgid(pid)
        assert group != os.getpgid(0), "the command shares the caller's process group"
        outsiders = []
        for proc in psutil.process_iter():
            try:
                if os.getpgid(proc.pid) == group and not _descends_from(proc.pid, pid):
                    outsiders.append(proc.pid)
            except OSError:
                continue
        assert not outsiders, (
            f"the command's process group {group} also holds processes that are not the shell "
            f"or its descendants (the implementation?): {outsiders}"
        )
        stdin = _stdin_of(pid)
        if stdin is not None:
            assert not stdin.startswith(("/dev/tty", "/dev/pts/", "/dev/console")), (
                f"the command's stdin is a terminal ({stdin})"
            )
            if stdin != "/dev/null":
                shared = [p.pid for p in psutil.Process(pid).parents() if _stdin_of(p.pid) == stdin]
                assert not shared, (
                    f"the command's stdin ({stdin}) is the stdin of its ancestor(s) {shared}: a "
                    "command reading it would eat the implementation's input"
                )
    finally:
        ws.put("go", "")
    obs = bash_obs(pending.result(30))
    assert obs.exit_code == 0, f"the command should end normally: {dict(obs.raw)}"


#: whether the command's standard output and standard error are one file (one pipe, socket or
#: terminal, or one file opened twice): bash's ``-ef`` compares the device and inode behind the
#: two descriptors; nothing is printed where /dev/fd does not exist
SAME_FILE = (
    "if [ -e /dev/fd/1 ] && [ -e /dev/fd/2 ]; then "
    "if [ /dev/fd/1 -ef /dev/fd/2 ]; then echo fd1-fd2:one; else echo fd1-fd2:two; fi; fi"
)


@clause("BASH-PROC-04")
def test_output_keeps_interleaving(tools: ToolClient) -> None:
    command = "for i in $(seq 1 200); do echo out$i; echo err$i >&2; done"
    obs = bash_obs(expect_ok(tools.call("bash", command=command, timeout=30)))
    expected = "".join(f"out{i}\nerr{i}\n" for i in range(1, 201))
    got = shown_output(obs)
    if obs.truncated:  # a small view: the kept parts must still be interleaved exactly
        assert expected.startswith(obs.output_head) and expected.endswith(obs.output_tail or "")
    else:
        assert got == expected, f"interleaving lost: {got[:200]!r}"
    # Two streams read apart keep that order whenever the reader wakes after every write,
    # as it does on a busy machine: the order above can be luck. Two files behind the two
    # descriptors lose it as soon as the command writes faster than that, so they fail every run
    files = shown_output(bash_obs(expect_ok(tools.call("bash", command=SAME_FILE, timeout=30))))
    assert "fd1-fd2:two" not in files.split(), (
        "the command's standard output and standard error are two different files ([ /dev/fd/1 "
        "-ef /dev/fd/2 ] is false): the streams are read apart, and the order above was kept "
        "only because the reader read after each write; a command that writes faster loses it"
    )


@clause("BASH-CWD-02")
def test_working_directory(tools: ToolClient, ws: Workspace) -> None:
    obs = bash_obs(expect_ok(tools.call("bash", command="pwd -P")))
    assert obs.output.strip() == os.path.realpath(ws.root)
    missing = str(ws.root / "gone")
    result = tools.call("bash", command=f"touch {ws.root}/ran", _cwd=missing)
    expect_error(result, what="a working directory that does not exist")
    assert not ws.exists("ran"), "the command ran although its working directory is missing"


# --- how a command ended ----------------------------------------------------------------------


@clause("BASH-EXIT-04")
@pytest.mark.parametrize(
    "text", ["hello\n", "héllo wörld 中文 😀\n", "no newline", "a\tb\r\nc\n"], ids=str.strip
)
def test_success_exact_output(tools: ToolClient, ws: Workspace, text: str) -> None:
    ws.put("out.txt", text)
    obs = bash_obs(expect_ok(tools.call("bash", command="cat out.txt")))
    assert obs.exit_code == 0, f"exit_code should be 0: {dict(obs.raw)}"
    assert obs.output == text, f"output {obs.output!r}, printed {text!r}"


@clause("BASH-EXIT-05")
@pytest.mark.parametrize("code", [1, 2, 7, 127, 255])
def test_nonzero_exit(tools: ToolClient, code: int) -> None:
    result = tools.call("bash", command=f"echo partial; exit {code}")
    expect_error(result, what=f"exit {code}")
    obs = bash_obs(result)
    assert obs.exit_code == code, f"exit_code should be {code}: {dict(obs.raw)}"
    assert obs.output == "partial\n", f"the output printed must be observed: {obs.output!r}"


@clause("BASH-EXIT-06")
@pytest.mark.parametrize("name", ["TERM", "KILL", "INT"])
def test_killed_by_signal(tools: ToolClient, name: str) -> None:
    result = tools.call("bash", command=f"echo before; kill -{name} $$")
    expect_error(result, what=f"death by SIG{name}")
    obs = bash_obs(result)
    assert obs.signal == f"SIG{name}", f"the observation should name SIG{name}: {dict(obs.raw)}"
    assert obs.exit_code is None, "a command killed by a signal has no exit code"
    assert obs.output == "before\n", f"the output printed must be observed: {obs.output!r}"


#: harmless commands that command policies commonly block: each exits 0 when run
FLAGGED = {
    "sudo": "sudo -n true 2>/dev/null",
    "pipe-to-sh": "echo true | sh",
    "rm-rf": "rm -rf ./no-such-build-dir",
    "chmod-R": "mkdir -p sub && chmod -R 755 sub",
    "dd": "dd if=/dev/zero of=zero.bin bs=1 count=1 2>/dev/null",
    "eval": "eval 'true'",
}


@clause("BASH-EXIT-07")
@pytest.mark.parametrize("probe", sorted(FLAGGED))
def test_blocked_command_is_not_a_success(tools: ToolClient, ws: Workspace, probe: str) -> None:
    command = f"touch ran; {FLAGGED[probe]}; true"
    result = tools.call("bash", command=command)
    obs = bash_obs(result)
    if result.is_error:
        with precondition("BASH-EXIT-04", "a command that exits 0 is a success when it runs"):
            assert obs.exit_code is None and not ws.exists("ran"), (
                f"{command!r} ran (exit code {obs.exit_code}) and answered with an error"
            )
        assert not obs.running, f"a refused command's observation says it runs: {dict(obs.raw)}"
        return
    assert ws.exists("ran"), (
        f"{command!r} answered with a success, but it never ran (its first step, `touch ran`, "
        f"left no file): a blocked command must be an error result. Text: {result.text[:200]!r}"
    )
    assert obs.exit_code == 0, f"a success must say the command exited 0: {dict(obs.raw)}"


@clause("BASH-TO-02")
@long(1)
def test_timeout_keeps_output(tools: ToolClient) -> None:
    fast(tools)
    result, obs, handed_over = complete(
        tools, tools.call("bash", command="echo before; sleep 30", timeout=1)
    )
    if not handed_over:
        expect_error(result, what="a timeout")
    assert obs.timed_out, f"the observation should say timed_out: {dict(obs.raw)}"
    assert obs.timeout_s == 1, f"the observation should give the timeout applied: {obs.timeout_s}"
    assert shown_output(obs).startswith("before"), f"output so far lost: {obs.output!r}"


#: prints a line every tenth of a second for about ten seconds, then a last line
KEEPS_PRINTING = "for i in $(seq 1 100); do echo tick $i; sleep 0.1; done; echo finished"


@clause("BASH-TO-02")
@long(1)
def test_timeout_counts_from_start_not_from_last_output(tools: ToolClient) -> None:
    """A timeout that counts only inactivity never ends a command that keeps printing."""
    fast(tools)
    _, obs, _ = complete(tools, tools.call("bash", command=KEEPS_PRINTING, timeout=1))
    shown = shown_output(obs)
    assert obs.timed_out and "finished" not in shown, (
        "a command that printed a line every 0.1 s ran past its timeout of 1 s "
        f"(timed_out={obs.timed_out}, exit_code={obs.exit_code}, the last line "
        f"{shown.rstrip().rpartition(chr(10))[2]!r:.60}): the timeout must count from the "
        "command's start, not from its last output"
    )


# --- output ---------------------------------------------------------------------------------


@clause("BASH-OUT-04")
def test_control_characters_removed(tools: ToolClient, ws: Workspace) -> None:
    ws.put("raw.bin", b"a\x1b[31mred\x1b[0m\tb\r\nc\x00\x07\x08d\x7f\n")
    output = bash_obs(expect_ok(tools.call("bash", command="cat raw.bin"))).output
    assert not CONTROL.search(output), f"control characters left: {output!r}"
    assert "\t" in output and "\r\n" in output, f"tab and CR must stay: {output!r}"
    assert "red" in output and "cd" in output.replace("\n", "")


@clause("BASH-OUT-04")
@long(1)
def test_utf8_split_across_writes(tools: ToolClient) -> None:
    command = (
        r"printf '\xe4'; sleep 0.3; printf '\xb8\xad'; sleep 0.3; printf '\xf0\x9f'; "
        r"sleep 0.3; printf '\x98\x80\n'"
    )
    assert bash_obs(expect_ok(tools.call("bash", command=command))).output == "中😀\n"


@clause("BASH-OUT-04")
def test_invalid_utf8(tools: ToolClient) -> None:
    output = bash_obs(expect_ok(tools.call("bash", command=r"printf 'a\xffb\xc3\n'"))).output
    assert output.startswith("a\ufffdb"), f"invalid bytes must become U+FFFD: {output!r}"


# --- presentation ---------------------------------------------------------------------------


def _expect_output_in_text(result: Any) -> None:
    obs = bash_obs(result)
    pieces = [obs.output_head, obs.output_tail or ""] if obs.truncated else [obs.output]
    expect_in_order(result, [p.rstrip("\n") for p in pieces], "the command's output")


def _mentions(text: str, forms: set[str]) -> bool:
    """One of ``forms`` as a number of its own (a unit may follow it: ``1250ms``, ``1.25s``)."""
    return any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d|\.\d)", text) for f in forms)


@clause("BASH-PRES-02")
def test_text_shows_output(tools: ToolClient, ws: Workspace) -> None:
    ws.put("out.txt", "alpha 1\nbeta 2\n")
    _expect_output_in_text(expect_ok(tools.call("bash", command="cat out.txt")))


@clause("BASH-PRES-02")
@pytest.mark.parametrize("code", [77, 213])
def test_text_gives_exit_code(tools: ToolClient, ws: Workspace, code: int) -> None:
    result = expect_error(tools.call("bash", command=f"echo failing-step; exit {code}"))
    _expect_output_in_text(result)
    expect_number(result, code, "the exit code", ws.root)


@clause("BASH-PRES-02")
def test_text_names_signal(tools: ToolClient, ws: Workspace) -> None:
    result = expect_error(tools.call("bash", command="echo before-signal; kill -TERM $$"))
    _expect_output_in_text(result)
    text = masked_text(result, ws.root)
    assert re.search(r"\b(SIG)?TERM\b", text) or _mentions(text, {"15"}), (
        f"the text should name the signal (SIGTERM, TERM or 15); saw {text[:400]!r}"
    )


@clause("BASH-PRES-02")
@long(1.2)
def test_text_gives_timeout(tools: ToolClient, ws: Workspace) -> None:
    fast(tools)
    result, obs, _ = complete(
        tools, tools.call("bash", command="echo before-timeout; sleep 30", timeout=1.25)
    )
    assert obs.timed_out
    _expect_output_in_text(result)
    text = masked_text(result, ws.root)
    assert _mentions(text, {"1.25", "1250"}), (
        f"the text should say the timeout (1.25 seconds or 1250 ms); saw {text[:400]!r}"
    )


@clause("BASH-PRES-04")
def test_empty_output_is_said(tools: ToolClient) -> None:
    # how each ended (success, error with the code) is BASH-EXIT-04/05's; this judges the text
    result = tools.call("bash", command="true")
    assert result.text.strip(), "a command that prints nothing must not answer with a blank text"
    failed = tools.call("bash", command="exit 3")
    assert failed.text.strip(), "a failing command that prints nothing must not answer blank"
