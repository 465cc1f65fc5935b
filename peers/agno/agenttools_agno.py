"""agno's CodingTools through the kit's in-process adapter.

``agenttools run --impl agenttools_agno:create`` (with this directory on ``PYTHONPATH``) checks
the coding toolkit agno gives its agents, ``agno.tools.coding.CodingTools``: ``read_file``,
``write_file``, ``edit_file``, ``grep``, ``find`` and ``run_shell``. No model, no API key, no
network: each call takes the toolkit's functions the way an ``Agent`` prepares them for a run
(a per-run copy, ``process_entrypoint``: pydantic's ``validate_call`` around the method), turns
the model's arguments into a ``FunctionCall`` with agno's own ``get_function_call`` (from the
JSON text a model sends) and runs ``FunctionCall.execute()``; the result is what agno's model
layer puts in the tool message: ``str(result)`` on success, the error text on failure.

The adapter translates and maps; it never corrects. Canonical names become agno's own
(``path`` -> ``file_path``, ``content`` -> ``contents``, ``old_string`` -> ``old_text``, ``glob``
-> ``include``), a canonical 1-based read offset becomes agno's 0-based one, and
``details.observation`` is read from agno's own text: the ``N | line`` rows and the
``[Showing lines A-B of T total]`` footer of a read, the ``Wrote N lines to <path>`` line, the
unified diff of an edit, grep's ``path:N:text`` rows, the paths ``find`` lists and the ``Exit
code: N`` header of ``run_shell``. Whatever agno does wrong stays wrong here and shows up in the
suite (README.md lists every deviation).
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import re
import signal
import threading
import tomllib
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agno.tools.coding import CodingTools
from agno.tools.function import Function
from agno.utils.functions import get_function_call

HERE = Path(__file__).resolve().parent
MANIFEST_FILE = HERE / "manifest.toml"

#: canonical tool -> CodingTools function
TOOL_NAMES: Mapping[str, str] = {
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "grep": "grep",
    "glob": "find",
    "bash": "run_shell",
}
#: canonical argument -> agno argument, where they differ (the rest keep their name; an argument
#: agno does not have reaches its validator under the canonical name, and is refused there, as
#: it would be refused from a model)
RENAMED: Mapping[str, Mapping[str, str]] = {
    "read": {"path": "file_path"},
    "write": {"path": "file_path", "content": "contents"},
    "edit": {"old_string": "old_text", "new_string": "new_text"},
    "grep": {"glob": "include"},
}
#: canonical arguments whose value names the only behaviour agno's tool has: the argument is
#: left out, as a model that knows the tool would leave it out (any other value goes through
#: and agno refuses the unknown argument)
ONLY_BEHAVIOUR: Mapping[str, Mapping[str, Any]] = {
    "edit": {"replace_all": False},  # edit_file replaces exactly one occurrence
    "grep": {"output_mode": "content"},  # grep always shows matching lines
}

#: settings ``configure`` accepts: CodingTools constructor arguments
SETTINGS: Mapping[str, str] = {
    "bash.default_timeout_s": "shell_timeout",  # CodingTools(shell_timeout=)
}
DEFAULTS: Mapping[str, int] = {"shell_timeout": 120}


class UnknownToolError(Exception):
    """By this name the kit recognises a protocol fault (a tool agno's toolkit does not have)."""


# --- the adapter ------------------------------------------------------------------------------


class AgnoTools:
    """The in-process implementation object: ``initialize``, ``configure``, ``call``."""

    def __init__(self) -> None:
        with open(MANIFEST_FILE, "rb") as handle:
            self.manifest: dict[str, Any] = tomllib.load(handle)
        self.version = importlib.metadata.version("agno")
        self.manifest["version"] = self.version
        self._settings: dict[str, int] = dict(DEFAULTS)
        self._lock = threading.Lock()
        # agno logs every call (and its errors) through its own handlers; the model sees none
        # of it, so the host keeps it out of the run's output
        logging.getLogger("agno").setLevel(logging.CRITICAL)

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
        """One canonical call. agno's tools take neither an environment nor a cancel: a command
        inherits this process's environment, and a call runs to its end."""
        name = TOOL_NAMES.get(tool) if tool in self.manifest["tools"] else None
        if name is None:
            raise UnknownToolError(
                f"unknown tool {tool!r}: the manifest declares {sorted(self.manifest['tools'])}"
            )
        with self._lock:
            knobs = dict(self._settings)
        args = translate(tool, arguments)
        toolkit = CodingTools(
            base_dir=cwd,
            restrict_to_base_dir=False,
            shell_timeout=knobs["shell_timeout"],
            all=True,
        )
        functions = prepared_functions(toolkit)
        # the JSON text a model sends; agno decodes it (and turns "true"/"null"/... strings into
        # booleans and None) before validation
        function_call = get_function_call(
            name, json.dumps(args), f"call_{uuid.uuid4().hex}", functions
        )
        if function_call is None:  # cannot happen: every name above is a CodingTools function
            raise UnknownToolError(f"agno's CodingTools has no function {name!r}")
        if function_call.error is not None:
            # the model layer answers the decoding error without running the function
            return _error(function_call.error, NOT_RUN_OBSERVATION if tool == "bash" else None)
        outcome = function_call.execute()
        if outcome.status != "success":
            return _error(
                function_call.error or outcome.error or "",
                NOT_RUN_OBSERVATION if tool == "bash" else None,
            )
        text = str(outcome.result)
        observation = OBSERVERS[tool](
            text, arguments if isinstance(arguments, Mapping) else {}, args, cwd, knobs
        )
        details = {"observation": observation} if observation is not None else {}
        return {"content": _text(text), "isError": False, "details": details}

    def shutdown(self) -> None:
        pass


def create() -> AgnoTools:
    return AgnoTools()


def prepared_functions(toolkit: CodingTools) -> dict[str, Function]:
    """The toolkit's functions as ``Agent`` prepares them for a run (``agent/_tools.py``)."""
    functions: dict[str, Function] = {}
    for name, function in toolkit.get_functions().items():
        prepared = function._per_run_copy()
        prepared.process_entrypoint(strict=False)
        functions[name] = prepared
    return functions


# --- arguments --------------------------------------------------------------------------------


def translate(tool: str, arguments: Any) -> Any:
    """Canonical arguments in agno's names; only well-formed values are converted."""
    if not isinstance(arguments, Mapping):
        return arguments  # agno's own decoding answers it
    names = RENAMED.get(tool, {})
    only = ONLY_BEHAVIOUR.get(tool, {})
    args: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in only and type(value) is type(only[key]) and value == only[key]:
            continue
        args[names.get(key, key)] = value
    offset = args.get("offset")
    if tool == "read" and type(offset) is int and offset >= 1:
        args["offset"] = offset - 1  # canonical 1-based line -> agno's 0-based index
    return args


# --- results ----------------------------------------------------------------------------------


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _error(text: str, observation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    details = {"observation": dict(observation)} if observation is not None else {}
    return {"content": _text(text), "isError": True, "details": details}


def _said_error(text: str) -> bool:
    """agno's tools answer a refusal as their return value, a success for the framework; such
    a text is no page, listing or edit, so it gets no observation."""
    return text.startswith(
        (
            "Error: ",
            "Error reading file: ",
            "Error editing file: ",
            "Error writing file: ",
            "Error running grep: ",
            "Error finding files: ",
        )
    )


def _joined(path: str, cwd: str) -> str:
    """A path as agno shows it (relative to its base directory, the call's cwd) made absolute."""
    return path if os.path.isabs(path) else os.path.join(cwd, path)


# --- observations, read from agno's own output ------------------------------------------------

READ_ROW = re.compile(r" *(-?\d+) \| (.*)", re.S)
READ_FOOTER = re.compile(r"\[Showing lines (-?\d+)-(-?\d+) of (\d+) total\]")
EMPTY_FILE = re.compile(r"File is empty: .*", re.S)
MAX_LINES = 2000  # CodingTools(max_lines=2000), the rows of one answer


def read_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any] | None:
    """Rows ``{n:>w} | {line}`` (the width at least 4), then ``[Showing lines A-B of T total]``
    when the page is not the whole file from line 1 (or was cut by the output caps)."""
    if _said_error(text):
        return None
    if EMPTY_FILE.fullmatch(text):
        return {"kind": "text", "start_line": 1, "lines": [], "total_lines": 0, "truncated": False}
    rows = text.split("\n")
    footer = READ_FOOTER.fullmatch(rows[-1]) if rows else None
    if footer is not None:
        rows = rows[:-1]
    if rows == [""]:
        rows = []  # every row cut by the byte cap: only the footer is left
    numbers: list[int] = []
    lines: list[str] = []
    for row in rows:
        found = READ_ROW.fullmatch(row)
        if found is None:
            raise ValueError(f"read_file answered a row without its number: {row[:200]!r}")
        numbers.append(int(found[1]))
        lines.append(found[2])
    if footer is not None:
        first, last, total = int(footer[1]), int(footer[2]), int(footer[3])
    else:
        first = numbers[0] if numbers else 1
        last = numbers[-1] if numbers else 0
        total = last
    start = numbers[0] if numbers else first
    shown_last = numbers[-1] if numbers else start - 1
    truncated = shown_last < total
    truncated_by = None
    if truncated:
        if len(numbers) < last - first + 1:  # the footer claims rows the caps cut
            truncated_by = "lines" if len(numbers) == MAX_LINES else "bytes"
        else:
            truncated_by = "limit" if "limit" in canonical else "lines"
    return {
        "kind": "text",
        "start_line": start,
        "lines": lines,
        "total_lines": total,
        "truncated": truncated,
        "truncated_by": truncated_by,
        # the footer's range is what a model continues from: the line after its last one
        "next_offset": last + 1 if footer is not None and last < total else None,
    }


WRITE_DONE = re.compile(r"Wrote (\d+) lines to (.*)", re.S)


def write_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any] | None:
    """``Wrote N lines to <path>``; agno writes ``contents`` with ``Path.write_text(encoding=
    "utf-8")`` (no newline translation on POSIX), so its UTF-8 size is the size it claims."""
    if _said_error(text):
        return None
    found = WRITE_DONE.fullmatch(text)
    if found is None:
        raise ValueError(f"write_file succeeded with an unknown text: {text[:200]!r}")
    contents = args.get("contents")
    size = len(contents.encode("utf-8")) if isinstance(contents, str) else 0
    return {"path": _joined(found[2], cwd), "bytes_written": size}


HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
NO_CHANGE = "No changes needed: old_text and new_text are identical"
NO_DIFF = "Edit applied but no visible diff generated"


def edit_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any] | None:
    """A unified diff (``--- a/<path>``, ``+++ b/<path>``, hunks) of the one replacement
    edit_file makes; ``No changes needed ...`` when old_text equals new_text (nothing written)."""
    if _said_error(text):
        return None
    path = args.get("file_path")
    shown = _joined(path, cwd) if isinstance(path, str) else ""
    if text == NO_CHANGE:
        return {"path": shown, "replacements": 0}
    if text == NO_DIFF:
        return {"path": shown, "replacements": 1}
    rows = text.split("\n")
    if len(rows) < 3 or not rows[0].startswith("--- a/") or not rows[1].startswith("+++ b/"):
        raise ValueError(f"edit_file succeeded with an unknown text: {text[:200]!r}")
    first_changed: int | None = None
    for index, row in enumerate(rows[2:], start=2):
        hunk = HUNK.match(row)
        if hunk is None:
            continue
        line = int(hunk[1])
        for body in rows[index + 1 :]:
            if body.startswith(("-", "+")):
                break
            line += 1  # a context row (" "), the same in the new file
        first_changed = line
        break
    return {
        "path": _joined(rows[1].removeprefix("+++ b/"), cwd),
        "replacements": 1,
        "first_changed_line": first_changed,
    }


GREP_NONE = re.compile(r"No matches found for pattern: .*", re.S)
GREP_LIMIT = re.compile(r"\[Results limited to -?\d+ matches\]")
GREP_CUT = re.compile(r"\[Output truncated: \d+ lines total\]")
GREP_ROW = re.compile(r"(.*?)([:-])(\d+)\2(.*)", re.S)
GREP_ROW_ONE_FILE = re.compile(r"(\d+)([:-])(.*)", re.S)


def grep_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any] | None:
    """``grep -rn`` output with the base directory's prefix removed: ``path:N:text`` (``-``
    around context rows, ``--`` between groups); a search of one file prints ``N:text`` with no
    path. Then ``[Results limited to L matches]`` (the first L output lines kept) and
    ``[Output truncated: T lines total]`` (the rows and size caps)."""
    if _said_error(text):
        return None
    observation: dict[str, Any] = {"mode": "content", "truncated": False, "lines": []}
    if GREP_NONE.fullmatch(text):
        return observation
    rows = text.split("\n")
    if rows and GREP_CUT.fullmatch(rows[-1]):
        rows, observation["truncated"] = rows[:-1], True
    if rows and GREP_LIMIT.fullmatch(rows[-1]):
        rows, observation["truncated"] = rows[:-1], True
    path = args.get("path")
    one_file = isinstance(path, str) and os.path.isfile(_joined(path, cwd))
    lines: list[dict[str, Any]] = []
    for row in rows:
        if row in ("", "--"):
            continue
        if one_file:
            found = GREP_ROW_ONE_FILE.fullmatch(row)
            if found is None:
                raise ValueError(f"grep answered an unknown row: {row[:200]!r}")
            shown, mark, number, body = str(path), found[2], found[1], found[3]
        else:
            found = GREP_ROW.fullmatch(row)
            if found is None:
                raise ValueError(f"grep answered an unknown row: {row[:200]!r}")
            shown, mark, number, body = found[1], found[2], found[3], found[4]
        lines.append(
            {
                "path": _joined(shown, cwd),
                "line": int(number),
                "text": body,
                "match": mark == ":",
                "cut": False,
            }
        )
    observation["lines"] = lines
    return observation


GLOB_NONE = re.compile(r"No files found matching pattern: .*", re.S)
GLOB_LIMIT = re.compile(r"\[Results limited to -?\d+ entries\]")


def glob_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any] | None:
    """``No files found matching pattern: P``, or the sorted matches relative to the base
    directory (a directory with a trailing ``/``), one a line, then ``[Results limited to N
    entries]`` when the cap was reached."""
    if _said_error(text):
        return None
    if GLOB_NONE.fullmatch(text):
        return {"paths": [], "truncated": False}
    rows = text.split("\n")
    capped = bool(rows) and GLOB_LIMIT.fullmatch(rows[-1]) is not None
    if capped:
        rows = rows[:-1]
    return {"paths": [_joined(row, cwd) for row in rows], "truncated": capped}


EXIT_HEADER = re.compile(r"Exit code: (-?\d+)\n")
SHELL_CUT = re.compile(
    r"\n\[Output truncated: \d+ lines total\. Full output saved to: (.*)\]\Z", re.S
)
TIMED_OUT = re.compile(r"Error: Command timed out after (\d+) seconds")
#: a command that did not run, or whose result was lost (bad arguments, a decoding error)
NOT_RUN_OBSERVATION: Mapping[str, Any] = {"exit_code": None, "output": "", "timeout_s": None}


def bash_observation(
    text: str, canonical: Mapping[str, Any], args: Mapping[str, Any], cwd: str, knobs: Any
) -> dict[str, Any]:
    """``Exit code: N`` then stdout followed by stderr (decoded with universal newlines), cut
    at 2,000 lines / 50,000 bytes with a note naming the file that holds the whole output;
    ``Error: Command timed out after N seconds`` (the output so far is lost); ``Error running
    shell command: <exception>`` when the output cannot be decoded."""
    timeout = args.get("timeout")
    applied = timeout if type(timeout) is int else knobs["shell_timeout"]
    observation: dict[str, Any] = {"exit_code": None, "output": "", "timeout_s": applied}
    if TIMED_OUT.fullmatch(text):
        observation["timed_out"] = True
        return observation
    header = EXIT_HEADER.match(text)
    if header is None:  # refused or failed before a result: nothing was shown
        return observation
    code = int(header[1])
    output = text[header.end() :]
    cut = SHELL_CUT.search(output)
    if cut is not None:
        output = output[: cut.start()]
        observation["truncated"] = True
        observation["output_head"] = output
        observation["full_output_path"] = cut[1]
    observation["output"] = output
    if code < 0:
        observation["signal"] = _signal_name(-code)
    else:
        observation["exit_code"] = code
    return observation


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


OBSERVERS: Mapping[str, Any] = {
    "read": read_observation,
    "write": write_observation,
    "edit": edit_observation,
    "grep": grep_observation,
    "glob": glob_observation,
    "bash": bash_observation,
}
