"""A bash written from the docs in five minutes: it declares nothing (no limits, no features),
has no default timeout and no cap, keeps all output in memory and shows all of it, and on a
timeout or an abort kills the shell only.

Declaring little must not pass: the core MUST clauses probe what it does not declare (an
endless command's timeout, 64 MiB of output, a process tree, a hard kill) and fail it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from typing import Any

from pytest_agenttools.implementations.broken._naive import Naive
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def _observation(**fields: Any) -> dict[str, Any]:
    return {"truncated": False, "background": False, "running": False, **fields}


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if (
        not isinstance(command, str)
        or not command.strip()
        or set(arguments)
        - {
            "command",
            "timeout",
            "run_in_background",
            "description",
        }
    ):
        raise ToolError(
            "invalid_argument", "bash: give a command", observation=_observation(output="")
        )
    if not isinstance(arguments.get("run_in_background", False), bool):
        raise ToolError(
            "invalid_argument",
            "bash: run_in_background must be a boolean",
            observation=_observation(output=""),
        )
    timeout = arguments.get("timeout")
    limit = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
    proc = subprocess.Popen(
        ["/bin/bash", "-c", command],
        cwd=ctx.cwd,
        env=dict(ctx.env) if ctx.env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    chunks: list[bytes] = []
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: os.read(fd, 1 << 16), b"")))
    reader.daemon = True
    reader.start()
    started = time.monotonic()
    reason = ""
    while proc.poll() is None:
        if ctx.cancel.is_set():
            reason = "aborted"
        elif limit is not None and time.monotonic() - started > limit:
            reason = "timeout"
        if reason:
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGKILL)  # the shell only
            proc.wait()
            break
        time.sleep(0.02)
    reader.join(0.5)  # orphans may hold the pipe: do not wait for them
    output = b"".join(chunks).decode("utf-8", "replace")
    code = proc.returncode
    obs = _observation(
        output=output,
        timeout_s=limit,
        timed_out=reason == "timeout",
        aborted=reason == "aborted",
        **({"exit_code": code} if code >= 0 else {"signal": signal.Signals(-code).name}),
    )
    failed = bool(reason) or code != 0
    text = output + (f"\n(exit {code})" if failed else "")
    return {
        "content": [{"type": "text", "text": text or "(empty)"}],
        "isError": failed,
        "details": {"observation": obs},
    }


class NaiveBash(Naive):
    def __init__(self) -> None:
        super().__init__("bash", run, line_numbers="arrow")
        self.tools.pop("task_output", None)

    def shutdown(self) -> None:
        """Nothing of bash's: the naive tool keeps no track of what it started."""


def create() -> ReferenceTools:
    return NaiveBash()


BROKEN = Broken(
    caught_by={
        "BASH-TIMEOUT-03",
        "BASH-TIMEOUT-04",
        "BASH-OUT-03",
        "BASH-OUT-06",
        "BASH-OUT-07",
        "BASH-OUT-08",
        "BASH-KILL-01",
        "BASH-ABORT-02",
        "BASH-SHUT-03",
        "BASH-SHUT-05",
    },
    suite_modules=[
        "test_bash",
        "test_bash_output",
        "test_bash_output_file",
        "test_bash_kill",
        "test_bash_lifecycle",
    ],
    create=create,
)
