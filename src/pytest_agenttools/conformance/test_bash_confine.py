"""confine.bash and confine.network: writes outside the roots fail, forbid_read hides, temp
roots work, nothing started by the command leaves the sandbox, no network unless allowed
(BASH-CONF-01..04, BASH-NET-01). Only a listener on 127.0.0.1 that the test opens is tried."""

from __future__ import annotations

import os
import shlex
import time

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import complete, drain, shown_output, task_id_of
from pytest_agenttools.conformance.confine_support import (
    ORIGINAL,
    SECRET,
    Confined,
    Listener,
)
from pytest_agenttools.harness.assertions import bash_obs
from pytest_agenttools.harness.markers import clause


def run(tools: ToolClient, command: str, timeout: float = 60) -> str:
    _, obs, _ = complete(tools, tools.bash(command=command, timeout=timeout))
    return shown_output(obs)


@clause("BASH-CONF-01")
def test_writes_outside_fail(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    out = str(confined.outside.root)
    os.symlink(out, ws.file("link-dir"))
    ws.put("in.txt", "inside\n")
    confined.apply()
    before = confined.outside.snapshot()
    q = shlex.quote
    attempts = [
        f"echo x > {q(out + '/a')}",
        f"touch {q(out + '/b')}",
        f"mkdir {q(out + '/c')}",
        f"cp in.txt {q(out + '/d')}",
        f"ln -s /etc {q(out + '/e')}",
        "echo x > link-dir/f",
        f"echo x > {q('/proc/self/root' + out + '/g')}",
        f"echo x > {q('/proc/1/root' + out + '/h')}",
        f'echo x > "/proc/$PPID/root"{q(out + "/i")}',
        f"echo x >> {q(out + '/existing.txt')}",
        f"ln {q(out + '/existing.txt')} hard && echo changed > hard",
        f"rm -f {q(out + '/secret.txt')}",
        f"mv {q(out + '/existing.txt')} moved.txt",
        "echo ok > inside.txt",
    ]
    output = run(tools, "; ".join(f"( {a} ) 2>&1" for a in attempts))
    assert confined.outside.snapshot() == before, (
        f"a sandboxed command changed the directory outside the roots; output: {output[:600]!r}"
    )
    assert ws.exists("inside.txt") and ws.get("inside.txt") == b"ok\n", (
        f"a write inside the workspace must work in the sandbox; output: {output[:600]!r}"
    )
    assert (confined.outside.root / "existing.txt").read_text() == ORIGINAL


@clause("BASH-CONF-02")
def test_forbid_read_hidden(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.put("secrets/key.txt", SECRET + "\n")
    ws.put("ok.txt", "visible-beside\n")
    os.symlink("secrets/key.txt", ws.file("link-key"))
    confined.apply(forbid_read=[str(ws.file("secrets"))])
    output = run(
        tools,
        "cat secrets/key.txt; cat link-key; ls -la secrets; cat secrets/*; "
        f"cat {shlex.quote(str(ws.file('secrets/key.txt')))}; grep -r S3CRET . ; cat ok.txt",
    )
    assert SECRET not in output, f"a file under forbid_read was read: {output[:600]!r}"
    assert "visible-beside" in output, f"a file beside it must read as usual: {output[:600]!r}"


@clause("BASH-CONF-03")
def test_temp_roots_usable(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    confined.apply()
    output = run(
        tools,
        'test -n "$TMPDIR" && test -w "$TMPDIR" && t=$(mktemp) && echo hi > "$t" && '
        'd=$(mktemp -d) && touch "$d/x" && echo TMP_OK; '
        'if [ -n "$XDG_CACHE_HOME" ]; then mkdir -p "$XDG_CACHE_HOME/agt" && '
        'touch "$XDG_CACHE_HOME/agt/x" && echo CACHE_OK; else echo CACHE_OK; fi',
    )
    assert "TMP_OK" in output, f"TMPDIR and mktemp must work in the sandbox: {output[:600]!r}"
    assert "CACHE_OK" in output, f"XDG_CACHE_HOME, when set, must be writable: {output[:600]!r}"


@clause("BASH-CONF-04")
def test_started_processes_stay_confined(
    tools: ToolClient, ws: Workspace, confined: Confined
) -> None:
    out = shlex.quote(str(confined.outside.root))
    confined.apply()
    before = confined.outside.snapshot()
    late = "sleep 0.5; echo x > {out}/{name}; echo done > {name}.ran"
    command = (
        f"setsid sh -c {shlex.quote(late.format(out=out, name='setsid'))} >/dev/null 2>&1 & "
        f"nohup sh -c {shlex.quote(late.format(out=out, name='nohup'))} >/dev/null 2>&1 & "
        f"( {late.format(out=out, name='sub')} ) >/dev/null 2>&1 & echo started"
    )
    run(tools, command)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
        ws.exists(f"{n}.ran") for n in ("setsid", "nohup")
    ):
        time.sleep(0.05)
    time.sleep(0.3)
    assert confined.outside.snapshot() == before, (
        "a process the command started (setsid, nohup or &) wrote outside the roots"
    )
    if tools.manifest.has_feature("bash.background"):
        task = task_id_of(
            tools.bash(command=f"echo x > {out}/task; echo task-ran", run_in_background=True)
        )
        output, _ = drain(tools, task)
        assert confined.outside.snapshot() == before, (
            f"a background task wrote outside the roots: {output[:300]!r}"
        )


@clause("BASH-NET-01")
def test_network_only_when_allowed(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    with Listener() as listener:
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo CONNECTED"
        confined.apply(network=False)
        denied = run(tools, probe + " 2>&1", timeout=30)
        time.sleep(0.3)
        assert "CONNECTED" not in denied and listener.accepted == 0, (
            f"with network false the command reached 127.0.0.1:{listener.port} ({denied!r})"
        )
        confined.apply(network=True)
        allowed = bash_obs(tools.bash(command=probe, timeout=30))
        assert "CONNECTED" in allowed.output, (
            f"with network true the command should reach the test's own listener: {allowed.raw}"
        )
