"""bash: run a command with a timeout, bounded output, a scrubbed environment and no survivors.

``bash {command, timeout?, run_in_background?}`` runs ``/bin/bash -c`` under a supervisor that
can end the whole tree (``processes``), streams the output to a file and shows a bounded view
(``output_capture``), hands a foreground command over to the background after the soft-yield
window (``tasks``), and gives the command a sanitised environment (``env_sanitize``).
``task_output {task_id, block?, timeout?}`` reads a background task's new output and status.
The protocol method ``bash/analyze`` classifies a command (``command_analysis``).
"""

from __future__ import annotations

import math
import os
import signal
import time
from typing import Any

from . import command_analysis, rm_shim
from .arguments import Param, check
from .context import CallContext
from .env_sanitize import InvalidMode, prepend_path, sanitize
from .results import ToolError, text_result
from .tasks import Task, TaskTable

FEATURES = (
    "bash.background",
    "bash.soft_yield",
    "bash.env_sanitize",
    "bash.subreaper",
    "bash.command_analysis",
    "bash.recoverable_delete",
)
LIMITS: dict[str, int | float] = {
    "bash.default_timeout_s": 120.0,
    "bash.max_timeout_s": 300.0,
    "bash.background_max_timeout_s": 3600.0,
    "bash.kill_grace_s": 3.0,
    "bash.soft_yield_s": 15.0,
    "bash.output_max_bytes": 24 * 1024,
    "bash.output_max_lines": 2000,
    "task_output.default_timeout_s": 30.0,
    "task_output.max_timeout_s": 600.0,
}
PARAMS = (
    Param("command", str, required=True),
    Param("timeout", (int, float, str)),
    Param("run_in_background", bool),
    Param("description", str),
)
TASK_PARAMS = (
    Param("task_id", str, required=True),
    Param("block", bool),
    Param("timeout", (int, float, str)),
)
POLL_S = 0.05
#: services key of an explicit env sanitize mode set by the host ("off", "scrub", "strict")
ENV_MODE_SERVICE = "bash.env_sanitize"


def _tasks(ctx_services: dict[str, Any]) -> TaskTable:
    table = ctx_services.get("bash.tasks")
    if table is None:
        table = ctx_services.setdefault("bash.tasks", TaskTable())
    return table


def parse_timeout(value: Any, maximum: float, tool: str = "bash") -> float:
    """Seconds, finite, above zero and at most ``maximum``; anything else is a clear error."""
    if value is None or isinstance(value, bool):
        raise ToolError("invalid_argument", f"{tool}: timeout must be a number of seconds.")
    if isinstance(value, str):
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout must be a number of seconds, not the string {value[:40]!r}.",
        )
    seconds = float(value)
    if math.isnan(seconds) or math.isinf(seconds) or seconds <= 0:
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout must be a positive, finite number of seconds; got {value!r}.",
        )
    if seconds > maximum:
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout {value!r} s is over the maximum of {maximum:g} seconds; use "
            "run_in_background for longer commands.",
        )
    return seconds


def _seconds(value: float) -> str:
    return f"{value:g}"


def _command_env(ctx: CallContext) -> tuple[dict[str, str], tuple[str, ...]]:
    inherited = dict(ctx.env) if ctx.env is not None else dict(os.environ)
    try:
        result = sanitize(inherited, ctx.services.get(ENV_MODE_SERVICE))
    except InvalidMode as exc:
        raise ToolError("invalid_setting", f"bash: {exc}.") from None
    env = result.env
    shim_dir = rm_shim.ensure(ctx.services)
    prepend_path(env, [shim_dir])
    return env, result.removed


def _start(ctx: CallContext, command: str, timeout: float) -> Task:
    env, removed = _command_env(ctx)
    table = _tasks(ctx.services)
    task = Task(
        table.new_id(),
        command,
        ctx.cwd,
        env,
        timeout=timeout,
        grace=float(ctx.limits["bash.kill_grace_s"]),
        keepalive=command_analysis.keepalive_of(command),
    )
    task.env_removed = removed
    table.track(task)
    return task


def _finish_text(task: Task, ctx: CallContext) -> tuple[str, bool, dict[str, Any]]:
    """The bounded output, followed by what ended the command; and whether it is an error."""
    view = task.read_new(ctx.limits["bash.output_max_bytes"], ctx.limits["bash.output_max_lines"])
    details: dict[str, Any] = {"totalBytes": view.total_bytes, "truncated": view.truncated}
    text = view.text
    if view.truncated:
        details["fullOutputPath"] = task.output.path
        details["omittedBytes"] = view.omitted_bytes
        text += (  # the view stays an exact head and tail; the notice follows a blank line
            f"\n\n[Output truncated: {view.total_bytes} bytes in all, head and tail shown. "
            f"Full output: {task.output.path} (read it, or redirect output to a file; do not "
            "re-run a command that has side effects).]"
        )
    else:
        _tasks(ctx.services).forget_file(task)
    outcome = task.outcome
    assert outcome is not None
    shown = text.rstrip("\n")
    if outcome.reason == "timeout":
        return (
            shown + f"\n\nCommand timed out after {_seconds(task.timeout or 0)} seconds",
            True,
            {
                **details,
                "timedOut": True,
            },
        )
    if outcome.reason in ("aborted", "shutdown"):
        return shown + "\n\nCommand aborted", True, {**details, "aborted": True}
    if outcome.exit.signal is not None:
        name = _signal_name(outcome.exit.signal)
        return (
            shown + f"\n\nCommand terminated by signal {name}",
            True,
            {
                **details,
                "signal": name,
            },
        )
    code = outcome.exit.code
    details["exitCode"] = code
    if code != 0:
        return shown + f"\n\nCommand exited with code {code}", True, details
    return text, False, details


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("bash", PARAMS, arguments)
    command = args["command"]
    if not command.strip():
        raise ToolError("invalid_argument", "bash: command is empty; give a shell command.")
    if "\x00" in command:
        raise ToolError("invalid_argument", "bash: command contains a NUL character.")
    if not os.path.isdir(ctx.cwd):
        raise ToolError("invalid_cwd", f"Working directory does not exist: {ctx.cwd}")
    background = bool(args.get("run_in_background", False))
    limit = "bash.background_max_timeout_s" if background else "bash.max_timeout_s"
    if "timeout" in args:
        timeout = parse_timeout(args["timeout"], float(ctx.limits[limit]))
    else:
        timeout = float(
            ctx.limits["bash.background_max_timeout_s" if background else "bash.default_timeout_s"]
        )
    task = _start(ctx, command, timeout)
    env_details: dict[str, Any] = {"trashDir": rm_shim.trash_dir(ctx.services)}
    if task.env_removed:
        env_details["envSanitized"] = list(task.env_removed)
    if background:
        _tasks(ctx.services).adopt(task)
        return text_result(
            f"Command started in the background as task {task.id}. Use task_output with "
            f'task_id="{task.id}" to read its output and status.',
            task_id=task.id,
            background=True,
            **env_details,
        )
    yield_at = task.started_at + float(ctx.limits["bash.soft_yield_s"])
    while not task.wait(POLL_S):
        if ctx.cancel.is_set():
            task.stop("aborted")
            task.wait(None)
            break
        if _now() >= yield_at:
            _tasks(ctx.services).adopt(task)
            return text_result(
                f"Command still running after {_seconds(ctx.limits['bash.soft_yield_s'])} "
                f"seconds; it continues in the background as task {task.id} (not restarted; "
                f"its timeout of {_seconds(timeout)} seconds still applies). Use task_output "
                f'with task_id="{task.id}" to read its output and status.',
                task_id=task.id,
                background=True,
                softYield=True,
                **env_details,
            )
    text, failed, details = _finish_text(task, ctx)
    details.update(env_details)
    if failed:
        return {
            "content": [{"type": "text", "text": text}],
            "isError": True,
            "details": {"error": "command_failed", **details},
        }
    return text_result(text, **details)


def _now() -> float:
    return time.monotonic()


def _status(task: Task) -> str:
    outcome = task.outcome
    if outcome is None:
        return "running"
    if outcome.reason == "timeout":
        return "timed_out"
    if outcome.reason in ("aborted", "shutdown"):
        return "killed"
    if outcome.exit.signal is not None:
        return "killed"
    return "completed" if outcome.exit.code == 0 else "failed"


def run_task_output(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    args = check("task_output", TASK_PARAMS, arguments)
    table = _tasks(ctx.services)
    task = table.get(args["task_id"])
    if task is None:
        raise ToolError(
            "not_found",
            f"task_output: no background task {args['task_id']!r}. Use the task_id that a bash "
            "call returned in details.task_id.",
        )
    block = args.get("block", True)
    wait = float(ctx.limits["task_output.default_timeout_s"])
    if "timeout" in args:
        wait = parse_timeout(
            args["timeout"], float(ctx.limits["task_output.max_timeout_s"]), "task_output"
        )
    if block:
        deadline = _now() + wait
        while not task.wait(POLL_S) and _now() < deadline and not ctx.cancel.is_set():
            pass
    status = _status(task)
    details: dict[str, Any] = {"task_id": task.id, "status": status}
    if status == "running":
        view = task.read_new(
            ctx.limits["bash.output_max_bytes"], ctx.limits["bash.output_max_lines"]
        )
        text = view.text + f"\n\n[Task {task.id} is still running.]"
        details["truncated"] = view.truncated
        if view.truncated:
            details["fullOutputPath"] = task.output.path
        return text_result(text, **details)
    text, _, extra = _finish_text(task, ctx)
    details.update(extra)
    if "exitCode" in extra:
        details["exitCode"] = extra["exitCode"]
    return text_result(
        text.rstrip("\n") + f"\n\n[Task {task.id} {status.replace('_', ' ')}.]", **details
    )


def _analyze(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    command = params.get("command") if isinstance(params, dict) else None
    if not isinstance(command, str):
        raise ValueError("bash/analyze needs params.command (a string)")
    return command_analysis.analyze(command)


METHODS = {"bash/analyze": _analyze}


def shutdown(services: dict[str, Any]) -> None:
    table = services.get("bash.tasks")
    if table is not None:
        table.shutdown()
    rm_shim.remove(services)
