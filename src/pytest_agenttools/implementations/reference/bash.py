"""bash: run a command with a timeout, bounded output, a scrubbed environment and no survivors.

``bash {command, timeout?, run_in_background?}`` runs ``/bin/bash -c`` under a supervisor that
can end the whole tree (``processes``), streams the output to a bounded file and shows a
bounded view (``output_capture``), hands a foreground command over to the background after the
soft-yield window (``tasks``), and gives the command a sanitised environment
(``env_sanitize``). ``task_output {task_id, block?, timeout?}`` reads a background task's new
output and status. The protocol method ``bash/analyze`` classifies a command
(``command_analysis``, ``command_risk``) and ``bash/match_rule`` matches a permission rule
(``command_rules``).

Every result, error results included, carries ``details.observation`` (a BashObservation:
docs/adapter-protocol.md, Observations). The operations port ``BashOps`` is how the tool
starts processes, captures output, builds the environment and finds the ``rm`` shim; a variant
of the reference swaps the port, not this module.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.reference import (
    command_analysis,
    command_rules,
    processes,
    rm_shim,
    session_env,
)
from pytest_agenttools.implementations.reference.arguments import Param, check
from pytest_agenttools.implementations.reference.bash_sandbox import sandboxed_ops
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.env_sanitize import (
    InvalidMode,
    Sanitized,
    prepend_path,
    sanitize,
)
from pytest_agenttools.implementations.reference.output_capture import (
    NO_OUTPUT,
    OutputCapture,
    View,
)
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.results import ToolError, text_result
from pytest_agenttools.implementations.reference.tasks import Task, TaskTable

FEATURES = (
    "bash.background",
    "bash.soft_yield",
    "bash.env_sanitize",
    "bash.subreaper",
    "bash.command_analysis",
    "bash.recoverable_delete",
    session_env.FEATURE,
)
LIMITS: dict[str, int | float] = {
    "bash.default_timeout_s": 120.0,
    "bash.max_timeout_s": 300.0,
    "bash.background_default_timeout_s": 1800.0,
    "bash.background_max_timeout_s": 3600.0,
    "bash.kill_grace_s": 3.0,
    "bash.soft_yield_s": 15.0,
    "bash.output_max_bytes": 24 * 1024,
    "bash.output_max_lines": 2000,
    "bash.output_file_max_bytes": 64 * 1024 * 1024,
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
#: the observation of a call that never got to run (the dispatcher's own refusals)
REFUSED: dict[str, Any] = {"observation": {"output": "", "truncated": False, "running": False}}
#: services key of an explicit env sanitize mode set by the host ("off", "scrub", "strict")
ENV_MODE_SERVICE = "bash.env_sanitize"


class BashOps:
    """How bash reaches processes and files; a variant swaps this port, not the module."""

    def spawn(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str],
        *,
        keepalive: bool,
        grace: float,
    ) -> CommandProcess:
        """Start ``bash -c command`` under a supervisor that can end its whole tree."""
        return Supervised(command, cwd, env, keepalive=keepalive, grace=grace)

    def shell(self) -> str | None:
        """The bash that runs commands (BASH-SHELL-01); None when no bash is installed."""
        return processes.find_bash()

    def capture(self, read_fd: int, file_max_bytes: int) -> OutputCapture:
        """Drain the command's output into a bounded file (BASH-OUT-03, BASH-OUT-08)."""
        return OutputCapture(read_fd, file_max_bytes=file_max_bytes)

    def environment(
        self, inherited: Mapping[str, str], mode: str | None, *, background: bool
    ) -> Sanitized:
        """The command's environment and the names removed; the same for a background task
        as for a foreground command (BASH-BG-04)."""
        return sanitize(inherited, mode)

    def rm_shim(self, services: dict[str, Any]) -> str:
        """The directory of the recoverable ``rm``, checked and rebuilt before every command
        (BASH-RM-02); ToolError when it cannot be made, so that no command runs without it."""
        return rm_shim.ensure(services)

    def hand_over(self, task: Task) -> Task:
        """The task that runs on after a soft yield: the very same one (BASH-YIELD-01)."""
        return task


OPS = BashOps()


def _tasks(ctx_services: dict[str, Any]) -> TaskTable:
    table = ctx_services.get("bash.tasks")
    if table is None:
        table = ctx_services.setdefault("bash.tasks", TaskTable())
    return table


#: what a refused foreground timeout suggests, and what a refused background one says instead
LONGER = "use run_in_background for longer commands"
BACKGROUND_CAP = "that is the cap of a background task (bash.background_max_timeout_s)"


def parse_timeout(value: Any, maximum: float, tool: str = "bash", longer: str = LONGER) -> float:
    """Seconds, finite, above zero and at most ``maximum`` (0: no cap); else a clear error.

    BASH-TIMEOUT-03: the reference refuses a bad timeout (nothing runs) rather than guessing;
    replacing it by the default or the cap is the other correct design. ``longer`` is what a
    timeout over the cap is told: a foreground call is pointed to ``run_in_background``, a call
    that already set it is told the background cap instead.
    """
    if value is None or isinstance(value, bool):
        raise ToolError("invalid_argument", f"{tool}: timeout must be a number of seconds.")
    if isinstance(value, str):
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout must be a number of seconds, not the string {value[:40]!r}.",
        )
    cap = f"at most {maximum:g} seconds" if maximum > 0 else "a finite number of seconds"
    try:
        seconds = float(value)
    except OverflowError:  # an integer beyond the float range
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout is too large; give {cap}" + (f"; {longer}." if maximum > 0 else "."),
        ) from None
    if math.isnan(seconds) or math.isinf(seconds) or seconds <= 0:
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout must be a positive, finite number of seconds; got {value!r:.40}.",
        )
    if maximum > 0 and seconds > maximum:
        raise ToolError(
            "invalid_argument",
            f"{tool}: timeout {seconds:g} s is over the maximum of {maximum:g} seconds; {longer}.",
        )
    return seconds


def _seconds(value: float) -> str:
    return f"{value:g}"


def _command_env(
    ctx: CallContext, ops: BashOps, background: bool
) -> tuple[dict[str, str], tuple[str, ...]]:
    inherited = dict(ctx.env) if ctx.env is not None else dict(os.environ)
    try:
        result = ops.environment(
            inherited, ctx.services.get(ENV_MODE_SERVICE), background=background
        )
    except InvalidMode as exc:
        raise ToolError("invalid_setting", f"bash: {exc}.") from None
    env = dict(result.env)
    env.update(session_env.of(ctx.services).variables())  # BASH-SESSION-01, -03
    prepend_path(env, [ops.rm_shim(ctx.services)])  # BASH-RM-01: the shim first on PATH
    return env, result.removed


#: the refusal when no bash is installed (BASH-SHELL-01)
NO_BASH = (
    "bash: no bash found (neither /bin/bash nor bash on PATH); nothing ran. Commands run only "
    "in bash, never in another shell: install bash to run commands."
)


def _start(ctx: CallContext, ops: BashOps, command: str, timeout: float, background: bool) -> Task:
    if ops.shell() is None:  # BASH-SHELL-01: refused, never run by sh in bash's place
        raise ToolError("no_shell", NO_BASH)
    ops = sandboxed_ops(ctx.services, ops)  # BASH-CONF-01: jailed while confine.roots is set
    env, removed = _command_env(ctx, ops, background)
    table = _tasks(ctx.services)
    task = Task(
        table.new_id(),
        command,
        ctx.cwd,
        env,
        timeout=timeout,
        grace=float(ctx.limits["bash.kill_grace_s"]),
        keepalive=command_analysis.keepalive_of(command),
        ops=ops,
        file_max_bytes=int(ctx.limits["bash.output_file_max_bytes"]),
        background=background,
    )
    task.env_removed = removed
    table.track(task)
    return task


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _view(task: Task, ctx: CallContext) -> View:
    return task.read_new(
        ctx.limits["bash.output_max_bytes"],
        ctx.limits["bash.output_max_lines"],
        ctx.limits.unit("bash.output_max_bytes"),
    )


def observation(
    task: Task | None,
    view: View | None = None,
    *,
    env_removed: bool = False,
    trash_dir: str | None = None,
) -> dict[str, Any]:
    """The canonical account of a command (BashObservation), whatever the text says:
    BASH-EXIT-04, BASH-EXIT-05, BASH-EXIT-06 (how it ended), BASH-OUT-07 (where the rest is)."""
    obs: dict[str, Any] = {"output": view.text if view else "", "truncated": False}
    if view is not None:  # BASH-OUT-09: the totals of what this result shows a view of
        obs.update(
            total_bytes=view.total_bytes,
            total_lines=view.total_lines,
            output_lines=view.shown_lines,
            truncated_by=view.cut_by,
            last_line_partial=view.tail_partial,
        )
    if view is not None and view.truncated:
        obs.update(truncated=True, output_head=view.head, output_tail=view.tail)
    if task is None:  # refused: nothing ran
        obs["running"] = False
        return obs
    if task.announced or (view is not None and view.truncated):
        obs["full_output_path"] = task.output.path
        obs["full_output_truncated"] = task.output.file_truncated
    obs.update(
        timeout_s=task.timeout,
        background=task.background,
        task_id=task.id if task.background else None,
        running=task.outcome is None,
    )
    outcome = task.outcome
    if outcome is not None:
        obs["timed_out"] = outcome.reason == "timeout"
        obs["aborted"] = outcome.reason in ("aborted", "shutdown")
        if outcome.exit.signal is not None:
            obs["signal"] = _signal_name(outcome.exit.signal)
        else:
            obs["exit_code"] = outcome.exit.code
    if env_removed:
        obs["env_removed"] = list(task.env_removed)  # BASH-ENV-06: once per command
    if trash_dir is not None:
        obs["trash_dir"] = trash_dir
    return obs


def _cut_notice(task: Task, view: View) -> str:
    """BASH-PRES-03: a cut view says so and where the whole output is; BASH-PRES-06: it advises
    reading that file, not re-running the command (after a blank line, so
    that the view itself stays an exact head and tail)."""
    if not view.truncated:
        return ""
    kept = (
        " (the file keeps the first and the last part only: the command printed more than "
        f"{task.file_max_bytes} bytes)"
        if task.output.file_truncated
        else ""
    )
    return (
        f"\n\n[Output truncated: {view.total_bytes} bytes in all, head and tail shown. "
        f"Full output: {task.output.path}{kept} (read it, or redirect output to a file; "
        "do not re-run a command that has side effects).]"
    )


def _finish_text(task: Task, view: View) -> tuple[str, bool, dict[str, Any]]:
    """The bounded output, followed by what ended the command; and whether it is an error.

    BASH-PRES-02 (the output and the ending in the text), BASH-PRES-04 (empty output said),
    BASH-GOLD-01 (the wording of the reference profile)."""
    details: dict[str, Any] = {"totalBytes": view.total_bytes, "truncated": view.truncated}
    text = (view.text or NO_OUTPUT) + _cut_notice(task, view)
    if view.truncated:
        details["fullOutputPath"] = task.output.path
        details["omittedBytes"] = view.omitted_bytes
    outcome = task.outcome
    assert outcome is not None
    shown = text.rstrip("\n")
    if outcome.reason == "timeout":
        seconds = _seconds(task.timeout or 0)
        return (
            shown + f"\n\nCommand timed out after {seconds} seconds",
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


def _refused(exc: ToolError, task_id: str | None = None) -> ToolError:
    """A refused call still carries an observation: nothing ran."""
    obs = observation(None)
    if task_id is not None:
        obs["task_id"] = task_id
    return ToolError(exc.code, exc.message, **{**exc.details, "observation": obs})


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    try:
        args, timeout, background = _checked(arguments, ctx)
        ops: BashOps = ctx.ops_for("bash", OPS)
        task = _start(ctx, ops, args["command"], timeout, background)
    except ToolError as exc:
        raise _refused(exc) from None
    trash = rm_shim.trash_dir(ctx.services)
    env_details: dict[str, Any] = {"trashDir": trash}
    if task.env_removed:
        env_details["envSanitized"] = list(task.env_removed)
    if background:  # BASH-BG-01, BASH-PRES-05: the task id at once, and in the text
        _tasks(ctx.services).adopt(task)
        return text_result(
            f"Command started in the background as task {task.id}. Use task_output with "
            f'task_id="{task.id}" to read its output and status.',
            task_id=task.id,
            background=True,
            **env_details,
            observation=observation(task, env_removed=True, trash_dir=trash),
        )
    yield_at = task.started_at + float(ctx.limits["bash.soft_yield_s"])
    while not task.wait(POLL_S):
        if ctx.cancel.is_set():  # BASH-ABORT-02: the tree ends as on a timeout
            task.stop("aborted")
            task.wait(None)
            break
        if _now() >= yield_at:  # BASH-YIELD-01: handed over in place, never restarted
            task = ops.hand_over(task)
            task.background = True
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
                observation=observation(task, env_removed=True, trash_dir=trash),
            )
    view = _view(task, ctx)
    text, failed, details = _finish_text(task, view)
    if not view.truncated:
        _tasks(ctx.services).forget_file(task)
    details.update(env_details)
    details["observation"] = observation(task, view, env_removed=True, trash_dir=trash)
    # BASH-EXIT-07: a success only for a command that ran and exited 0; the reference blocks no
    # command for its text (bash/analyze classifies, it never refuses), a refusal is an error
    if failed:
        return {
            "content": [{"type": "text", "text": text}],
            "isError": True,
            "details": {"error": "command_failed", **details},
        }
    return text_result(text, **details)


def _checked(arguments: Any, ctx: CallContext) -> tuple[dict[str, Any], float, bool]:
    """BASH-ARG-02: bad arguments are refused before anything runs; BASH-PRES-01: each error
    names the argument."""
    args = check("bash", PARAMS, arguments)
    command = args["command"]
    if not command.strip():
        raise ToolError("invalid_argument", "bash: command is empty; give a shell command.")
    if "\x00" in command:
        raise ToolError("invalid_argument", "bash: command contains a NUL character.")
    if not os.path.isdir(ctx.cwd):  # BASH-CWD-02
        raise ToolError("invalid_cwd", f"Working directory does not exist: {ctx.cwd}")
    background = bool(args.get("run_in_background", False))
    if background and ctx.features is not None and "bash.background" not in ctx.features:
        # BASH-BG-07: an undeclared feature is refused, never half-done
        raise ToolError(
            "invalid_argument",
            "bash: run_in_background is not supported here (the feature bash.background is "
            "not declared); nothing ran. Run the command without run_in_background.",
        )
    if background:  # BASH-BG-05: a background task is bounded too, by its own default and cap
        cap = float(ctx.limits["bash.background_max_timeout_s"])
        default = float(ctx.limits["bash.background_default_timeout_s"])
    else:  # BASH-TIMEOUT-04: a command naming no timeout gets the default
        cap = float(ctx.limits["bash.max_timeout_s"])
        default = float(ctx.limits["bash.default_timeout_s"])
    default = min(default, cap) if cap > 0 else default
    longer = BACKGROUND_CAP if background else LONGER
    timeout = parse_timeout(args["timeout"], cap, longer=longer) if "timeout" in args else default
    return args, timeout, background


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
    """BASH-BG-01, BASH-BG-02, BASH-PRES-05: a task's new output and how it stands."""
    given = arguments.get("task_id") if isinstance(arguments, Mapping) else None
    try:
        args = check("task_output", TASK_PARAMS, arguments)
        task = _tasks(ctx.services).get(args["task_id"])
        if task is None:
            raise ToolError(
                "not_found",
                f"task_output: no background task {args['task_id']!r}. Use the task_id that a "
                "bash call returned in details.task_id.",
            )
        wait = float(ctx.limits["task_output.default_timeout_s"])
        if "timeout" in args:
            wait = parse_timeout(
                args["timeout"], float(ctx.limits["task_output.max_timeout_s"]), "task_output"
            )
    except ToolError as exc:
        raise _refused(exc, given if isinstance(given, str) else None) from None
    if args.get("block", True):
        deadline = _now() + wait
        while not task.wait(POLL_S) and _now() < deadline and not ctx.cancel.is_set():
            pass
    status = _status(task)
    details: dict[str, Any] = {"task_id": task.id, "status": status}
    view = _view(task, ctx)
    if status == "running":
        text = (view.text or NO_OUTPUT) + _cut_notice(task, view)
        text += f"\n\n[Task {task.id} is still running.]"
        details["truncated"] = view.truncated
        if view.truncated:
            details["fullOutputPath"] = task.output.path
        return text_result(text, **details, observation=observation(task, view))
    text, _, extra = _finish_text(task, view)
    details.update(extra)
    if not view.truncated:
        _tasks(ctx.services).forget_file(task)
    return text_result(
        text.rstrip("\n") + f"\n\n[Task {task.id} {status.replace('_', ' ')}.]",
        **details,
        observation=observation(task, view),
    )


def _analyze(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    command = params.get("command") if isinstance(params, dict) else None
    if not isinstance(command, str):
        raise ValueError("bash/analyze needs params.command (a string)")
    return command_rules.analyze(command)


def _match_rule(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    """BASH-AN-08, BASH-AN-09: does a permission rule cover a command?"""
    given = params if isinstance(params, dict) else {}
    rule, command = given.get("rule"), given.get("command")
    if not isinstance(rule, str) or not isinstance(command, str):
        raise ValueError("bash/match_rule needs params.rule and params.command (strings)")
    return command_rules.match_rule(rule, command)


METHODS = {"bash/analyze": _analyze, "bash/match_rule": _match_rule}


def shutdown(services: dict[str, Any]) -> None:
    """BASH-SHUT-02, BASH-SHUT-03: every task and every kept-alive leftover ends."""
    table = services.get("bash.tasks")
    if table is not None:
        table.shutdown()
    rm_shim.remove(services)


#: the tools of this module, as the toolbox reads them
TOOLS = (
    ToolDefinition(
        "bash",
        run,
        features=FEATURES,
        limits=LIMITS,
        ops=OPS,
        refused=REFUSED,
        methods=METHODS,
        shutdown=shutdown,
    ),
    # task_output shares bash's port and, when it cannot run, its refused details
    ToolDefinition("task_output", run_task_output, ops=OPS, refused=REFUSED),
)
