"""How each alternative presents `bash` and `task_output` results, and what its manifest says.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

Each text is built from the observation, in the manner of the real tool the style is modelled
on: Claude Code's plain output with its own notices, Gemini CLI's labelled fields with the
truncation notice first and the signal as a number, pi's `Command exited with code N` and
`[Showing lines X-Y of N. Full output: PATH]`, Codex's `Exit code:` header and serde-style
argument errors, Cursor's tags. Some styles also behave differently where the spec allows it:
tab_absolute and raw_text run commands as a Node agent does (output over a socket pair, stdin
closed or /dev/null); header_first replaces a bad timeout by the default and clamps one over
the cap (the source design) instead of refusing it; reworded_errors declares no tool-level
timeout cap, for commands or for background tasks (``bash.max_timeout_s = 0``,
``bash.background_max_timeout_s = 0``).
"""

from __future__ import annotations

import copy
import math
import signal
from collections.abc import Callable, Mapping
from typing import Any

from pytest_agenttools.implementations.reference import bash as reference_bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]


class _Call:
    """What a finished result says, read from its observation (and the call's arguments)."""

    def __init__(self, arguments: Any, cwd: str, result: dict[str, Any]) -> None:
        self.raw_arguments = arguments
        self.arguments = arguments if isinstance(arguments, Mapping) else {}
        self.cwd = cwd
        self.result = result
        self.details: dict[str, Any] = dict(result.get("details") or {})
        self.obs: dict[str, Any] = dict(self.details.get("observation") or {})
        self.is_error = bool(result.get("isError"))
        self.message = "\n".join(
            str(b.get("text", "")) for b in result.get("content", []) if b.get("type") == "text"
        )

    @property
    def task_output(self) -> bool:
        return "task_id" in self.arguments and "command" not in self.arguments

    @property
    def refused(self) -> bool:
        """An error before anything ran: bad arguments, a missing directory, an unknown task."""
        obs = self.obs
        ran = obs.get("exit_code") is not None or obs.get("signal") or obs.get("timed_out")
        return self.is_error and not ran and not obs.get("aborted") and not obs.get("background")

    @property
    def started_task(self) -> bool:
        """A call that put its command in the background: it gets the task id whether or not
        the task is still running when the answer is written (a short one may be done)."""
        return bool(self.obs.get("background") and not self.task_output and not self.is_error)

    @property
    def output(self) -> str:
        return str(self.obs.get("output") or "")

    @property
    def cut(self) -> bool:
        return bool(self.obs.get("truncated"))

    @property
    def head(self) -> str:
        return str(self.obs.get("output_head") or "")

    @property
    def tail(self) -> str:
        return str(self.obs.get("output_tail") or "")

    @property
    def path(self) -> str:
        return str(self.obs.get("full_output_path") or "")

    @property
    def omitted(self) -> int:
        return int(self.details.get("omittedBytes") or 0)

    @property
    def code(self) -> int | None:
        code = self.obs.get("exit_code")
        return code if isinstance(code, int) else None

    @property
    def signal_name(self) -> str | None:
        name = self.obs.get("signal")
        return str(name) if name else None

    @property
    def signal_number(self) -> int | None:
        try:
            return int(signal.Signals[self.signal_name or ""].value)
        except KeyError:
            return None

    @property
    def timeout(self) -> float:
        return float(self.obs.get("timeout_s") or 0)

    @property
    def task_id(self) -> str:
        return str(self.obs.get("task_id") or self.arguments.get("task_id") or "")

    def failed(self) -> bool:
        return bool(
            self.obs.get("timed_out")
            or self.obs.get("aborted")
            or self.signal_name
            or (self.code not in (0, None))
        )

    def answer(self, text: str, **details: Any) -> dict[str, Any]:
        out = copy.deepcopy(self.result)
        out["content"] = [{"type": "text", "text": text}]
        out["details"] = {**out.get("details", {}), **details}
        return out


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _file_lines(path: str) -> int | None:
    try:
        with open(path, "rb") as handle:
            return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return None


def _rename(text: str, names: Mapping[str, str]) -> str:
    for canonical, own in names.items():
        text = text.replace(canonical, own)
    return text


class NodeStyleOps(reference_bash.BashOps):
    """Processes as a Node agent gets them: stdout and stderr on one end of a socket pair (what
    libuv gives a child for a "pipe"), and stdin closed or /dev/null, not a pipe."""

    def __init__(self, stdin: str) -> None:
        self.stdin = stdin

    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        return Supervised(
            command, cwd, env, keepalive=keepalive, grace=grace, channel="socket", stdin=self.stdin
        )


# --- tab_absolute: Claude Code ---------------------------------------------------------------


def _claude(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        text = _rename(call.message, {"task_id": "bash_id"})
        return call.answer(f"<tool_use_error>InputValidationError: {text}</tool_use_error>")
    if call.started_task:
        return call.answer(
            f"Command running in background with ID: {call.task_id}. Check its output with "
            f"BashOutput (bash_id {call.task_id})."
        )
    if call.cut:
        body = (
            f"{call.head.rstrip(chr(10))}\n\n... [{call.omitted} bytes truncated; the complete "
            f"output is saved at {call.path}; read it there instead of re-running the command] "
            f"...\n\n{call.tail}"
        )
    else:
        body = call.output
    parts = [body.rstrip("\n")] if body.strip() else []
    if call.obs.get("timed_out"):
        parts.append(f"Command timed out after {call.timeout * 1000:.0f}ms")
    elif call.obs.get("aborted"):
        parts.append("[Request interrupted by user]")
    elif call.signal_name:
        parts.append(f"Killed by {call.signal_name}")
    elif call.code not in (0, None):
        parts.append(f"Exit code {call.code}")
    if call.task_output:
        state = "running" if call.obs.get("running") else "completed"
        parts.insert(0, f"Background shell {call.task_id} is {state}.")
    if not parts:
        parts.append("Tool ran without output or errors")
    return call.answer("\n".join(parts))


# --- header_first: Gemini CLI ------------------------------------------------------------------


def _gemini(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        return call.answer(f"Error: Invalid parameters provided. Reason: {call.message}")
    if call.started_task:
        return call.answer(f"Background task started. Task: {call.task_id}\nStatus: running")
    notice = ""
    if call.cut:
        notice = (
            f"Output too long; it was truncated to its first and last lines. The full output "
            f"was saved to: {call.path} (read that file; do not run the command again)\n\n"
        )
        body = f"{call.head}...\n{call.tail}"
    else:
        body = call.output
    if call.obs.get("timed_out"):
        error = f"Command timed out after {call.timeout:g}s."
    elif call.obs.get("aborted"):
        error = "Command was cancelled by user before it could complete."
    else:
        error = "(none)"
    number = call.signal_number
    fields = [
        f"Command: {call.arguments.get('command', '(task ' + call.task_id + ')')}",
        f"Directory: {cwd}",
        f"Output: {body.rstrip(chr(10)) if body.strip() else '(empty)'}",
        f"Error: {error}",
        f"Exit Code: {call.code if call.code is not None else '(none)'}",
        f"Signal: {number if number is not None else '(none)'}",
    ]
    if call.task_output:
        fields.insert(
            0, f"Task: {call.task_id} ({'running' if call.obs.get('running') else 'done'})"
        )
    return call.answer(notice + "\n".join(fields))


def _bounded_timeout_run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    """A bad timeout becomes the default and one over the cap is clamped (the source design)."""
    if isinstance(arguments, Mapping) and "timeout" in arguments:
        args = dict(arguments)
        value = args["timeout"]
        background = args.get("run_in_background") is True
        cap = float(
            ctx.limits["bash.background_max_timeout_s" if background else "bash.max_timeout_s"]
        )
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        try:
            seconds = float(number) if number is not None else math.nan
        except OverflowError:
            seconds = math.inf
        if not seconds > 0 or math.isnan(seconds):
            del args["timeout"]
        elif cap > 0 and seconds > cap:
            args["timeout"] = cap
        elif math.isinf(seconds):
            del args["timeout"]
        arguments = args
    return reference_bash.run(arguments, ctx)


#: services key of the names a first-time reporter has already reported in this session
REPORTED = "alternatives.env_reported"


def _first_report_run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    """Removed variable names reported the first time each is removed in the session and left
    out after (MiniMax's report, on pi); the reference repeats them for every command."""
    result = reference_bash.run(arguments, ctx)
    details = result.get("details", {})
    obs = details.get("observation")
    if isinstance(obs, dict) and obs.get("env_removed"):
        reported: set[str] = ctx.services.setdefault(REPORTED, set())
        fresh = [name for name in obs["env_removed"] if name not in reported]
        reported.update(fresh)
        obs["env_removed"] = fresh
        if fresh:
            details["envSanitized"] = fresh
        else:
            details.pop("envSanitized", None)
    return result


# --- raw_text: pi ------------------------------------------------------------------------------


def _pi_refusal(call: _Call) -> str:
    if call.task_output:
        return call.message
    args = call.arguments
    if "command" not in args:
        problem = "command: must have required property 'command'"
    elif not isinstance(args.get("command"), str):
        problem = "command: must be string"
    elif not str(args["command"]).strip():
        problem = "command: must not be empty"
    elif "run_in_background" in args and not isinstance(args["run_in_background"], bool):
        problem = "run_in_background: must be boolean"
    elif set(args) - {"command", "timeout", "run_in_background", "description"}:
        extra = sorted(set(args) - {"command", "timeout", "run_in_background", "description"})
        problem = f"{extra[0]}: must NOT have additional properties"
    elif "timeout" in args:
        problem = f"timeout: {call.message}"
    else:
        return call.message
    return f'Validation failed for tool "bash":\n  - {problem}'


def _pi(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        return call.answer(_pi_refusal(call))
    if call.started_task:
        return call.answer(f"Started background task {call.task_id}")
    if call.cut:
        total = _file_lines(call.path) if not call.obs.get("full_output_truncated") else None
        shown_tail = _lines(call.tail)
        if total is not None:
            span = f"{max(1, total - shown_tail + 1)}-{total} of {total}"
        else:
            span = f"1-{_lines(call.head)} and the last {shown_tail}"
        body = (
            f"{call.head}...\n{call.tail.rstrip(chr(10))}\n\n"
            f"[Showing lines {span}. Full output: {call.path} (read it rather than re-run)]"
        )
    else:
        body = call.output.rstrip("\n") or "(no output)"
    if call.obs.get("timed_out"):
        body += f"\n\nCommand timed out after {call.timeout:g} seconds"
    elif call.obs.get("aborted"):
        body += "\n\nCommand aborted"
    elif call.signal_name:
        body += f"\n\nCommand was killed by signal {call.signal_name}"
    elif call.code not in (0, None):
        body += f"\n\nCommand exited with code {call.code}"
    if call.task_output and call.obs.get("running"):
        body += f"\n\n(task {call.task_id} still running)"
    return call.answer(body)


# --- renamed_arguments: OpenCode ---------------------------------------------------------------

OPENCODE_NAMES = {"run_in_background": "background", "task_id": "taskId"}


def _opencode(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        return call.answer(_rename(call.message, OPENCODE_NAMES))
    if call.started_task:
        return call.answer(
            f"Started in the background. taskId: {call.task_id} (read it with task_output)"
        )
    return call.answer(_rename(call.message, OPENCODE_NAMES))


# --- reworded_errors: Codex ---------------------------------------------------------------------

BASH_FIELDS = ("command", "timeout", "run_in_background", "description")
PARSE = "failed to parse function arguments:"


def _codex_refusal(call: _Call) -> str:
    args = call.arguments
    fields = ("task_id", "block", "timeout") if call.task_output else BASH_FIELDS
    if not isinstance(call.raw_arguments, Mapping):
        return f"{PARSE} invalid type: expected a map"
    unknown = sorted(set(args) - set(fields))
    if unknown:
        expected = ", ".join(f"`{f}`" for f in fields)
        return f"{PARSE} unknown field `{unknown[0]}`, expected one of {expected}"
    if call.task_output:
        if "task_id" not in args:
            return f"{PARSE} missing field `task_id`"
        return f"unknown session id {args.get('task_id')!r} (`task_id`): {call.message}"
    if "command" not in args:
        return f"{PARSE} missing field `command`"
    if not isinstance(args["command"], str):
        kind = type(args["command"]).__name__
        return f"{PARSE} invalid type: {kind}, expected a string for `command`"
    if not args["command"].strip():
        return "exec rejected: `command` is empty"
    if "run_in_background" in args and not isinstance(args["run_in_background"], bool):
        return f"{PARSE} invalid type for `run_in_background`, expected a boolean"
    if "timeout" in args and "timeout" in call.message:
        return f"exec rejected: bad `timeout` ({args['timeout']!r:.40}); it takes seconds, > 0"
    if "Working directory" in call.message:
        return f"sandbox error: the working directory {call.cwd} does not exist"
    return f"exec failed: {call.message}"


def _codex(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        return call.answer(_codex_refusal(call))
    if call.started_task:
        return call.answer(f"Process running with session ID {call.task_id}")
    header: list[str] = []
    if call.obs.get("timed_out"):
        header.append(f"command timed out after {call.timeout * 1000:.0f} milliseconds")
    elif call.obs.get("aborted"):
        header.append("aborted by user")
    elif call.signal_name:
        header.append(f"Exit code: none (killed by {call.signal_name})")
    elif call.code is not None:
        header.append(f"Exit code: {call.code}")
    if call.task_output and call.obs.get("running"):
        header.append(f"Process running with session ID {call.task_id}")
    if call.cut:
        total = _lines(call.head) + _lines(call.tail)
        header.append(f"Total output lines: more than {total}")
        body = (
            f"{call.head.rstrip(chr(10))}\n[... omitted {call.omitted} bytes; full output in "
            f"{call.path}, no need to rerun ...]\n{call.tail}"
        )
    else:
        body = call.output
    return call.answer("\n".join([*header, "Output:", body.rstrip("\n")]))


# --- tagged: Cursor -----------------------------------------------------------------------------


def _cursor(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if call.refused:
        return call.answer(f"<error>{call.message}</error>")
    if call.started_task:
        return call.answer(f'<task id="{call.task_id}" status="running"/>')
    parts: list[str] = []
    if call.task_output:
        status = "running" if call.obs.get("running") else "finished"
        parts.append(f'<task id="{call.task_id}" status="{status}"/>')
    if call.cut:
        parts += [
            f"<output_head>{call.head}</output_head>",
            f'<truncated omitted_bytes="{call.omitted}" full_output="{call.path}" '
            'advice="read full_output; do not re-execute"/>',
            f"<output_tail>{call.tail}</output_tail>",
        ]
    else:
        parts.append(f"<output>{call.output}</output>")
    if call.obs.get("timed_out"):
        parts.append(f'<timed_out seconds="{call.timeout:g}"/>')
    elif call.obs.get("aborted"):
        parts.append("<aborted/>")
    elif call.signal_name:
        parts.append(f"<signal>{call.signal_name}</signal>")
    elif call.code is not None:
        parts.append(f"<exit_code>{call.code}</exit_code>")
    return call.answer("".join(parts))


# --- char_units: caps counted in characters -----------------------------------------------------


def _chars(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    call = _Call(arguments, cwd, result)
    if not call.cut:
        return result
    notice = call.message.rfind("\n\n[Output truncated")
    ending = call.message[notice:] if notice >= 0 else ""
    text = (
        f"{call.head}[... output cut to its first and last "
        f"{len(call.head) + len(call.tail)} characters ...]\n{call.tail}"
        + ending.replace(" bytes in all", " bytes printed")
    )
    return call.answer(text)
