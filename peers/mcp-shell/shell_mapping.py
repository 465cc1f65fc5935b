"""Scripted mapping of @mako10k/mcp-shell-server 2.7.1: ``bash`` and ``task_output``.

Named by ``script`` in mapping.toml (format: docs/mcp-adapter.md, "Scripted mappings"). A table
cannot map this server honestly, because what it answers needs reading with its rules:

- ``shell_execute`` answers JSON text with ``status``, ``exit_code``, ``stdout`` and ``stderr``
  (separately: their interleaving is lost), each cut to its first 1,000 characters with
  ``output_truncated`` still false; the whole output is stored under an ``output_id``, read with
  ``read_execution_output``. A stream of exactly 1,000 characters is therefore reported as cut.
- ``execution_mode`` must be sent: its default (``adaptive``) moves a command to the background
  after 15 s. ``foreground`` runs the command and waits; ``background`` answers at once with an
  ``execution_id`` that ``process_get_execution`` polls (the output is there only once the task
  has ended, through its ``output_id``): several calls per ``task_output``, the id carried over.
  The server sets a task's ``completed`` status before it has stored the output, so an ended task
  without an ``output_id`` is polled again, briefly, until the id appears.
- Refused calls (a bad timeout, an unknown execution id, a missing directory) are JSON-RPC errors,
  shown here as error results the way an MCP host shows them to a model.

Every command runs in the call's ``cwd`` (``working_directory``), with the call's ``env`` added
to the server's own environment (``environment_variables``: the server can add and override
variables, never remove one). Canonical arguments the server does not know are sent under their
own names, so the server's handling of them is what the suite sees.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

from pytest_agenttools.connect.mcp.script import McpSession, Reply, ServerError
from pytest_agenttools.harness.contract import ToolCall, ToolResult

#: shell_execute's inline cut of stdout and of stderr (characters)
INLINE_CHARS = 1000
#: shell_execute's timeout_seconds when none is sent
DEFAULT_TIMEOUT_S = 60
#: task_output's wait when no timeout is given (the canonical default)
TASK_WAIT_S = 30.0
POLL_S = 0.2
#: how long an ended task's output may take to be stored, and how often that is polled
SAVE_WAIT_S = 5.0
SAVE_POLL_S = 0.02
#: how the server's message starts when it could not store an ended task's output
SAVE_FAILED = "Output file save failed"
#: read_execution_output's largest page
PAGE = 1024 * 1024
CANONICAL = {"command", "timeout", "run_in_background"}


def refused(error: ServerError) -> ToolResult:
    """A JSON-RPC error answer, as the model sees it; nothing ran."""
    return McpSession.result(
        f"MCP error {error.code}: {error.message}",
        is_error=True,
        observation={"running": False, "exit_code": None, "output": ""},
    )


async def bash(call: ToolCall, session: McpSession) -> ToolResult:
    args = dict(call.arguments)
    background = args.get("run_in_background") is True
    sent: dict[str, Any] = {
        "working_directory": call.cwd,
        "capture_stderr": True,
        "execution_mode": "background" if background else "foreground",
    }
    if "command" in args:
        sent["command"] = args["command"]
    if "run_in_background" in args and not isinstance(args["run_in_background"], bool):
        sent["execution_mode"] = args["run_in_background"]  # the server's enum refuses it
    timeout = args.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        # seconds as an integer: a fraction rounds up, so a command never gets less time (an
        # integer is sent as it is, even one beyond the float range: the server judges it)
        finite_float = isinstance(timeout, float) and math.isfinite(timeout)
        sent["timeout_seconds"] = math.ceil(timeout) if finite_float else timeout
    elif "timeout" in args:
        sent["timeout_seconds"] = timeout  # zero, negative, a string: the server refuses it
    for name, value in args.items():
        if name not in CANONICAL:
            sent[name] = value
    if call.env is not None:
        sent["environment_variables"] = dict(call.env)
    timeout_s = sent.get("timeout_seconds", DEFAULT_TIMEOUT_S)
    if not isinstance(timeout_s, int):
        timeout_s = DEFAULT_TIMEOUT_S
    try:
        reply = await session.call("shell_execute", sent)
    except ServerError as error:
        return refused(error)
    data = reply.json()
    status = data.get("status")
    if background:
        # a task, even one that ended before the answer was written: task_output polls it
        return McpSession.result(
            reply.text,
            observation={
                "background": True,
                "running": status == "running",
                "task_id": data.get("execution_id"),
                "exit_code": None,
                "output": "",
                "timeout_s": timeout_s,
            },
        )
    stdout, stderr = str(data.get("stdout") or ""), str(data.get("stderr") or "")
    output = stdout + stderr
    cut = (
        len(stdout) >= INLINE_CHARS
        or len(stderr) >= INLINE_CHARS
        or data.get("truncation_reason") == "size_limit"
    )
    exit_code = data.get("exit_code") if status == "completed" else None
    observation: dict[str, Any] = {
        "exit_code": exit_code,
        "signal": None,
        "timed_out": status == "timeout",
        "aborted": False,
        "output": output,
        "truncated": cut,
        "timeout_s": timeout_s,
        "running": False,
    }
    if cut:
        # only the start of each stream is shown; the end is never shown
        observation.update(output_head=output, output_tail="")
    return McpSession.result(
        reply.text, is_error=status != "completed" or exit_code != 0, observation=observation
    )


async def read_output(session: McpSession, output_id: str) -> tuple[list[Reply], str]:
    """The whole stored output of an execution, page by page (the id carried into each call)."""
    replies: list[Reply] = []
    text = ""
    offset = 0
    while True:
        reply = await session.call(
            "read_execution_output", {"output_id": output_id, "offset": offset, "size": PAGE}
        )
        replies.append(reply)
        page = reply.json()
        content = str(page.get("content") or "")
        text += content
        offset += len(content.encode("utf-8"))
        if not content or offset >= int(page.get("total_size") or 0):
            return replies, text


async def task_output(call: ToolCall, session: McpSession) -> ToolResult:
    args = dict(call.arguments)
    task_id = args.get("task_id")
    block = args.get("block", True)
    wait = args.get("timeout", TASK_WAIT_S)
    if not isinstance(wait, int | float) or isinstance(wait, bool) or wait < 0:
        wait = TASK_WAIT_S
    # a wait beyond the float range (an integer like 10**400) is a wait without end
    deadline = time.monotonic() + (float(wait) if wait < 2**1023 else math.inf)
    saved_by: float | None = None
    try:
        while True:
            reply = await session.call("process_get_execution", {"execution_id": task_id})
            data = reply.json()
            if data.get("status") != "running":
                # the server marks a task ended before it has stored the output (the store is
                # awaited after the status is set): until output_id (or the store's failure
                # message) appears, the output of an ended task is not readable yet
                stored = data.get("output_id") or str(data.get("message")).startswith(SAVE_FAILED)
                if stored:
                    break
                saved_by = saved_by if saved_by is not None else time.monotonic() + SAVE_WAIT_S
                if time.monotonic() >= saved_by:
                    break
                await asyncio.sleep(SAVE_POLL_S)
                continue
            if block is not True or time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_S)
        replies = [reply]
        full = ""
        if data.get("status") != "running" and data.get("output_id"):
            pages, full = await read_output(session, str(data["output_id"]))
            replies += pages
    except ServerError as error:
        return refused(error)
    shown: dict[str, int] = session.state.setdefault("shown", {})
    start = shown.get(str(task_id), 0)
    new = full[start:]
    shown[str(task_id)] = len(full)
    status = data.get("status")
    running = status == "running"
    exit_code = data.get("exit_code") if status == "completed" else None
    observation = {
        "background": True,
        "task_id": task_id,
        "running": running,
        "exit_code": exit_code,
        "signal": None,
        "timed_out": status == "timeout",
        "aborted": False,
        "output": new,
        "truncated": False,
    }
    # how the task ended is in the observation; the poll itself succeeded
    text = "\n".join(r.text for r in replies)
    return McpSession.result(text, observation=observation)
