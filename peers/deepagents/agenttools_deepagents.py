"""deepagents (langchain-ai) through the kit's in-process adapter.

``agenttools run --impl agenttools_deepagents:create`` (with this directory on ``PYTHONPATH``)
checks the six tools deepagents gives its agents: ``read_file``, ``write_file``, ``edit_file``,
``grep``, ``glob`` and ``execute`` of ``FilesystemMiddleware`` over a ``LocalShellBackend``. No
model, no API key, no network: each call builds the backend for the call's ``cwd`` and invokes
the tool object exactly as the agent's tool node does (the model's arguments plus an injected
``ToolRuntime``).

The adapter translates and maps; it never corrects. Canonical calls become deepagents' own
arguments (``path`` -> ``file_path``, read offsets from 1-based to 0-based, relative paths
joined onto ``cwd`` because the tools take absolute paths only). Results become
``agenttools/2`` results, and ``details.observation`` is read from deepagents' own output:
the ``@@ lines A-B of T | next offset N @@`` header of a read, the ``Successfully replaced N
instance(s)`` line of an edit, the ``path:`` / ``  N: text`` layout of grep, the list that
glob prints, and the exit code ``execute`` puts in its artifact. Whatever deepagents does
wrong stays wrong here and shows up in the suite (README.md lists every deviation).
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import signal
import threading
import tomllib
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepagents.backends import LocalShellBackend
from deepagents.backends.utils import EMPTY_CONTENT_WARNING, TRUNCATION_GUIDANCE, validate_path
from deepagents.middleware.filesystem import (
    GLOB_TRUNCATION_NOTE,
    GLOB_UNREADABLE_NOTE,
    GREP_TRUNCATION_NOTE,
    NO_LINES_REQUESTED_WARNING,
    READ_FILE_TRUNCATION_MSG,
    FilesystemMiddleware,
)
from langchain.tools import ToolRuntime
from langgraph.prebuilt.tool_node import ToolInvocationError
from pydantic import ValidationError

HERE = Path(__file__).resolve().parent
MANIFEST_FILE = HERE / "manifest.toml"

#: canonical tool -> deepagents tool
TOOL_NAMES: Mapping[str, str] = {
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "grep": "grep",
    "glob": "glob",
    "bash": "execute",
}
#: canonical argument -> deepagents argument, where they differ (the rest keep their name;
#: an argument deepagents does not have reaches its schema, which ignores it, as it would
#: ignore it from a model)
RENAMED: Mapping[str, Mapping[str, str]] = {
    "read": {"path": "file_path"},
    "write": {"path": "file_path"},
}
#: deepagents arguments that hold a path (joined onto cwd when relative)
PATH_ARGUMENTS: Mapping[str, str] = {
    "read_file": "file_path",
    "write_file": "file_path",
    "edit_file": "file_path",
    "grep": "path",
    "glob": "path",
}

#: settings ``configure`` accepts: deepagents constructor arguments
SETTINGS: Mapping[str, str] = {
    "bash.default_timeout_s": "timeout",  # LocalShellBackend(timeout=)
    "bash.output_max_bytes": "max_output_bytes",  # LocalShellBackend(max_output_bytes=)
    "bash.max_timeout_s": "max_execute_timeout",  # FilesystemMiddleware(max_execute_timeout=)
}
DEFAULTS: Mapping[str, int] = {
    "timeout": 120,
    "max_output_bytes": 100_000,
    "max_execute_timeout": 3600,
}


class UnknownToolError(Exception):
    """By this name the kit recognises a protocol fault (a tool deepagents does not have)."""


# --- the adapter ------------------------------------------------------------------------------


class DeepAgentsTools:
    """The in-process implementation object: ``initialize``, ``configure``, ``call``."""

    def __init__(self) -> None:
        with open(MANIFEST_FILE, "rb") as handle:
            self.manifest: dict[str, Any] = tomllib.load(handle)
        self.version = importlib.metadata.version("deepagents")
        self.manifest["version"] = self.version
        self._settings: dict[str, int] = dict(DEFAULTS)
        self._lock = threading.Lock()

    def initialize(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {
            "name": self.manifest["name"],
            "version": self.version,
            "protocol": "agenttools/2",
            "manifest": self.manifest,
        }

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        applied: dict[str, Any] = {}
        with self._lock:
            for name, value in settings.items():
                knob = SETTINGS.get(name)
                if knob is None or type(value) is not int or value <= 0:
                    continue
                self._settings[knob] = value
                applied[name] = value
        return {"applied": applied}

    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """One canonical call. deepagents' tools cannot be cancelled, so ``cancel`` is unused."""
        name = TOOL_NAMES.get(tool)
        if name is None:
            raise UnknownToolError(f"unknown tool {tool!r}: deepagents has {sorted(TOOL_NAMES)}")
        if not isinstance(arguments, Mapping):
            return _error(
                f"Error invoking tool '{name}': the arguments must be an object, "
                f"got {json_type(arguments)}.",
                NOT_RUN_OBSERVATION if tool == "bash" else None,
            )
        args = translate(tool, arguments, cwd)
        with self._lock:
            knobs = dict(self._settings)
        backend = LocalShellBackend(
            root_dir=cwd,
            virtual_mode=False,
            timeout=knobs["timeout"],
            max_output_bytes=knobs["max_output_bytes"],
            env=dict(env) if env is not None else None,
            inherit_env=env is None,
        )
        middleware = FilesystemMiddleware(
            backend=backend, max_execute_timeout=knobs["max_execute_timeout"]
        )
        try:
            found = {t.name: t for t in middleware.tools}[name]
            runtime: ToolRuntime[None, Any] = ToolRuntime(
                state={"messages": [], "files": {}},
                context=None,
                config={},
                stream_writer=lambda _chunk: None,
                tool_call_id=f"call_{uuid.uuid4().hex}",
                store=None,
            )
            try:
                message = found.invoke({**args, "runtime": runtime})
            except ValidationError as exc:
                # what langgraph's ToolNode answers the model (errors about the injected
                # runtime left out, as the tool node leaves them out)
                errors = [e for e in exc.errors() if e["loc"][:1] != ("runtime",)]
                return _error(
                    ToolInvocationError(name, exc, args, errors).message,
                    NOT_RUN_OBSERVATION if tool == "bash" else None,
                )
        finally:
            middleware._glob_executor.shutdown(wait=False)
        return to_result(tool, arguments, args, message, knobs)

    def shutdown(self) -> None:
        pass


def create() -> DeepAgentsTools:
    return DeepAgentsTools()


def json_type(value: Any) -> str:
    """The JSON name of a value's type, as a model would know it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "another value"


# --- arguments --------------------------------------------------------------------------------


def translate(tool: str, arguments: Mapping[str, Any], cwd: str) -> dict[str, Any]:
    """Canonical arguments in deepagents' names; only well-formed values are converted."""
    names = RENAMED.get(tool, {})
    args = {names.get(key, key): value for key, value in arguments.items()}
    args.pop("runtime", None)  # injected, never a model argument
    path_key = PATH_ARGUMENTS.get(TOOL_NAMES[tool])
    if path_key is not None and path_key in args:
        args[path_key] = absolute(args[path_key], cwd)
    offset = args.get("offset")
    if tool == "read" and type(offset) is int:
        args["offset"] = offset - 1  # canonical 1-based line -> deepagents' 0-based index
    return args


def absolute(path: Any, cwd: str) -> Any:
    """A relative path joined onto ``cwd``; anything else exactly as given.

    deepagents' tools take absolute paths only (a relative one is read from the filesystem
    root: ``a.txt`` becomes ``/a.txt``), so the agent host tells the model its working
    directory. ``~`` paths and non-strings go through unchanged, so deepagents' own checks
    answer them.
    """
    if isinstance(path, str) and path and not path.startswith(("/", "~")):
        return os.path.join(cwd, path)
    return path


# --- results ----------------------------------------------------------------------------------


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _error(text: str, observation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    details = {"observation": dict(observation)} if observation is not None else {}
    return {"content": _text(text), "isError": True, "details": details}


def to_result(
    tool: str, canonical: Mapping[str, Any], args: Mapping[str, Any], message: Any, knobs: Any
) -> dict[str, Any]:
    """A deepagents ToolMessage as an ``agenttools/2`` result with its observation."""
    is_error = message.status == "error"
    content = message.content
    if tool == "read" and isinstance(content, list):
        return _media_result(content)
    text = content if isinstance(content, str) else str(content)
    result: dict[str, Any] = {"content": _text(text), "isError": is_error, "details": {}}
    if tool == "bash":
        result["details"] = {
            "observation": bash_observation(text, message.artifact, args, knobs),
            "artifact": message.artifact,
        }
    elif not is_error:
        result["details"] = {"observation": OBSERVERS[tool](text, canonical, args)}
    return result


def _media_result(blocks: list[Any]) -> dict[str, Any]:
    """A read answered with multimodal blocks: images map to image blocks."""
    content: list[dict[str, Any]] = []
    mime: str | None = None
    for block in blocks:
        if isinstance(block, Mapping) and block.get("type") == "image":
            mime = str(block.get("mime_type") or "application/octet-stream")
            content.append({"type": "image", "data": block.get("base64", ""), "mimeType": mime})
        else:
            kind = block.get("type") if isinstance(block, Mapping) else type(block).__name__
            # an audio, video or file block has no agenttools/2 form: say so, do not drop it
            return _error(
                f"deepagents answered with a {kind!r} content block "
                f"({block.get('mime_type') if isinstance(block, Mapping) else '?'}), "
                "which agenttools/2 results cannot carry (text and image blocks only)."
            )
    return {
        "content": content,
        "isError": False,
        "details": {"observation": {"kind": "image", "mime_type": mime}},
    }


# --- observations, read from deepagents' own output -------------------------------------------

READ_HEADER = re.compile(r"@@ lines (\d+)-(\d+)(?: of (\d+))?((?: \| [^\n]*?)*) @@")
EDIT_DONE = re.compile(r"Successfully replaced (\d+) instance\(s\) of the string in '(.*)'", re.S)
WRITE_DONE = re.compile(r"Updated file (.*)", re.S)
NOTHING_READ = re.compile(
    re.escape(NO_LINES_REQUESTED_WARNING).replace(re.escape("{limit}"), r"-?\d+")
)
CLAMP_NOTICE = re.compile(r"\[Requested offset -?\d+ is before the start of the file; [^\n]*\]\n")


def read_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    """The page a read_file result shows: notices, the status header, then verbatim lines.

    Header fields: ``lines A-B[ of T]`` (1-based), ``next offset N`` (0-based: canonical N+1),
    ``truncated due to size`` (the 4 x tool_token_limit_before_evict char budget cut the
    page), ``truncated mid-line`` + ``K of M chars`` (one line longer than the budget, shown
    in part, with no offset to continue).
    """
    offset = canonical.get("offset")
    start = offset if type(offset) is int and offset >= 1 else 1
    if NOTHING_READ.fullmatch(text):
        # limit <= 0: deepagents reads nothing and says so
        return {"kind": "text", "start_line": start, "lines": [], "truncated": False}
    body_at = _skip_notices(text, str(args.get("file_path", "")))
    found = READ_HEADER.match(text, body_at)
    if found is None or (found.end() < len(text) and text[found.end()] != "\n"):
        raise ValueError(f"read_file answered without its status header: {text[:200]!r}")
    first, last = int(found[1]), int(found[2])
    total = int(found[3]) if found[3] is not None else None
    fields = [f.strip() for f in found[4].split("|") if f.strip()]
    body = text[found.end() + 1 :]
    if total is None and first == last == 1 and body == EMPTY_CONTENT_WARNING:
        # the empty-file reminder, given "in place of contents" (an empty or blank file)
        return {"kind": "text", "start_line": 1, "lines": [], "total_lines": 0}
    lines = body.split("\n")
    next_offset: int | None = None
    for field in fields:
        if field.startswith("next offset "):
            next_offset = int(field.removeprefix("next offset ")) + 1
    by_size = "truncated due to size" in fields or "truncated mid-line" in fields
    truncated = next_offset is not None or (total is not None and last < total)
    truncated_by = None
    if truncated:
        truncated_by = "bytes" if by_size else ("limit" if "limit" in canonical else "lines")
    return {
        "kind": "text",
        "start_line": first,
        "lines": lines,
        "cut_lines": [first] if "truncated mid-line" in fields else [],
        "total_lines": total,
        "truncated": truncated,
        "truncated_by": truncated_by,
        "next_offset": next_offset,
        "encoding": "utf-8",
    }


def _skip_notices(text: str, file_path: str) -> int:
    """Where the status header starts: after the notices deepagents puts above it (the
    negative-offset notice, then the size notice that names the file)."""
    at = 0
    found = CLAMP_NOTICE.match(text)
    if found is not None:
        at = found.end()
    try:
        shown_path = validate_path(file_path)
    except ValueError:
        return at
    cut = READ_FILE_TRUNCATION_MSG.format(file_path=shown_path).strip() + "\n"
    if text.startswith(cut, at):
        at += len(cut)
    return at


def edit_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    found = EDIT_DONE.fullmatch(text)
    if found is None:
        raise ValueError(f"edit_file succeeded with an unknown text: {text[:200]!r}")
    return {"path": found[2], "replacements": int(found[1])}


def write_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    """``Updated file <path>``; deepagents writes ``content`` as UTF-8 with no newline
    translation (``FilesystemBackend.write``), so that is the size on disk it claims."""
    found = WRITE_DONE.fullmatch(text)
    if found is None:
        raise ValueError(f"write_file succeeded with an unknown text: {text[:200]!r}")
    content = args.get("content")
    size = len(content.encode("utf-8")) if isinstance(content, str) else 0
    return {"path": found[1], "bytes_written": size}


def _strip_notes(text: str, notes: tuple[str, ...]) -> tuple[str, bool]:
    """The text without the notes deepagents appends after a blank line; whether one was."""
    found = False
    for note in notes:
        if text.endswith("\n\n" + note):
            text, found = text[: -len(note) - 2], True
    return text, found


def grep_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    """``No matches found``; else per mode: one path a line; ``path: N``; or ``path:`` then
    ``  N: text`` lines. Ends with the truncation note (the match cap or the time limit), and
    the 80,000-char cut adds a last line of its own (the line before it may be partial)."""
    mode = args.get("output_mode", "files_with_matches")
    text, capped = _strip_notes(text, (GREP_TRUNCATION_NOTE,))
    text = re.sub(r"\n\nNote: grep matches literal text, not regex, [^\n]*\Z", "", text)
    cut = text.endswith("\n" + TRUNCATION_GUIDANCE)
    if cut:
        text = text[: -len(TRUNCATION_GUIDANCE) - 1]
    observation: dict[str, Any] = {"mode": mode, "truncated": capped or cut}
    rows = [] if text == "No matches found" else text.split("\n")
    if mode == "files_with_matches":
        observation["files"] = rows[:-1] if cut else rows
    elif mode == "count":
        counts = []
        for row in rows[:-1] if cut else rows:
            path, _, count = row.rpartition(": ")
            counts.append({"path": path, "count": int(count)})
        observation["counts"] = counts
    else:
        lines: list[dict[str, Any]] = []
        path = ""
        for index, row in enumerate(rows):
            found = re.match(r"  (\d+)([:-]) (.*)", row, re.S)
            if found is None:
                path = row.removesuffix(":")
                continue
            lines.append(
                {
                    "path": path,
                    "line": int(found[1]),
                    "text": found[3],
                    "match": found[2] == ":",
                    "cut": cut and index == len(rows) - 1,
                }
            )
        observation["lines"] = lines
    return observation


def glob_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    """``No files found``, or the Python repr of the list of paths (the 80,000-char cut ends
    it with a guidance item), then the truncation note of the time budget."""
    text, noted = _strip_notes(text, (GLOB_TRUNCATION_NOTE, GLOB_UNREADABLE_NOTE))
    paths: list[str] = [] if text == "No files found" else list(ast.literal_eval(text))
    cut = bool(paths) and paths[-1] == TRUNCATION_GUIDANCE
    return {"paths": paths[:-1] if cut else paths, "truncated": noted or cut}


OBSERVERS: Mapping[str, Any] = {
    "read": read_observation,
    "write": write_observation,
    "edit": edit_observation,
    "grep": grep_observation,
    "glob": glob_observation,
}

EXECUTE_STATUS = re.compile(r"\n\[Command (?:succeeded|failed) with exit code (-?\d+)\]\Z")
EXECUTE_CUT_NOTE = "\n[Output was truncated due to size limits]"
SHELL_CUT_NOTE = re.compile(r"\n\n\.\.\. Output truncated at \d+ bytes\.\Z")
TIMED_OUT = re.compile(r"Error: Command timed out after \d+ seconds[ .]")
NOT_RUN = ("Error: Command must be a non-empty string.", "Error executing command (")
STDERR = "[stderr] "
#: a command refused before it ran (bad arguments): nothing ran, nothing was printed
NOT_RUN_OBSERVATION: Mapping[str, Any] = {"exit_code": None, "output": "", "timeout_s": None}


def bash_observation(
    text: str, artifact: Any, args: Mapping[str, Any], knobs: Mapping[str, int]
) -> dict[str, Any]:
    """What ``execute`` reports: its artifact's exit code and cut flag, the output without the
    status lines deepagents adds (``[Command ... with exit code N]``, ``Exit code: N``, the
    truncation notices, ``<no output>``) and without the ``[stderr] `` label on stderr lines.

    LocalShellBackend prints all of stdout, then stderr (stripped, each line labelled); a
    timeout answers exit code 124 and a message instead of the output so far; a signal is a
    negative exit code.
    """
    if not isinstance(artifact, Mapping):  # refused before running (bad timeout ...)
        return dict(NOT_RUN_OBSERVATION)
    timeout = args.get("timeout")
    applied = timeout if type(timeout) is int else knobs["timeout"]
    observation: dict[str, Any] = {"exit_code": None, "output": "", "timeout_s": applied}
    code = artifact.get("exit_code")
    truncated = bool(artifact.get("truncated"))
    output = text.removesuffix(EXECUTE_CUT_NOTE) if truncated else text
    output = EXECUTE_STATUS.sub("", output)
    observation["truncated"] = truncated
    if code == 124 and TIMED_OUT.match(output):
        observation["timed_out"] = True
        return observation
    if output.startswith(NOT_RUN):
        observation["exit_code"] = code
        return observation
    if code:
        output = output.removesuffix(f"\n\nExit code: {code}")
    if truncated:
        output = SHELL_CUT_NOTE.sub("", output)
    observation["output"] = "" if output == "<no output>" else _unlabel(output)
    if truncated:  # the view keeps the start of the output (a cut in UTF-8 bytes), no end
        observation["output_head"] = observation["output"]
    if isinstance(code, int) and code < 0:
        observation["signal"] = _signal_name(-code)
    else:
        observation["exit_code"] = code
    return observation


def _unlabel(output: str) -> str:
    """stdout, then the stderr lines without their label (deepagents joins the two with LF)."""
    rows = output.split("\n")
    first = len(rows)
    while first > 0 and rows[first - 1].startswith(STDERR):
        first -= 1
    if first == len(rows):
        return output
    stdout = "\n".join(rows[:first])
    return stdout + "\n".join(row[len(STDERR) :] for row in rows[first:])


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
