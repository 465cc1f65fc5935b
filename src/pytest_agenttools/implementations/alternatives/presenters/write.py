"""How each alternative presents `write` results, and what its manifest says about `write`.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

Each style follows the real tool it is modelled on: its success wording (with a path, without
one, with a byte count or not), its argument names in errors, its error vocabulary. One style
differs in behaviour as its model does: ``tab_absolute`` (Claude Code) keeps an existing CRLF
file's line endings when the model writes LF, which WRITE-EOL-02 allows.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_agenttools.implementations.reference.write import WriteOps

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]


class KeepsCrlf(WriteOps):
    """Claude Code's write: over a file whose first line ends in CRLF, LF content is stored
    with CRLF (an LF already preceded by CR stays as it is)."""

    def store_text(self, content: str, old_head: bytes | None) -> str:
        if old_head is None or not _first_ending_is_crlf(old_head):
            return content
        return re.sub(r"(?<!\r)\n", "\r\n", content)


def _first_ending_is_crlf(head: bytes) -> bool:
    if head.startswith(b"\xff\xfe"):  # UTF-16LE
        newline = head.find(b"\n\x00")
        return newline >= 2 and head[newline - 2 : newline] == b"\r\x00"
    newline = head.find(b"\n")
    return newline >= 1 and head[newline - 1 : newline] == b"\r"


# --- what the reference result says, as data --------------------------------------------------


def _bad_argument(arguments: Any) -> tuple[str, str, Any] | None:
    """(canonical name, "missing" or "type", value) of the first bad argument, if any."""
    if not isinstance(arguments, Mapping):
        return None
    for name in ("path", "content"):
        if name not in arguments or arguments[name] is None:
            return name, "missing", None
        if not isinstance(arguments[name], str):
            return name, "type", arguments[name]
    return None


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "undefined" if value is None else type(value).__name__


def _rust_type(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, list):
        return "sequence"
    return "map" if isinstance(value, Mapping) else "null"


def _target(arguments: Any, cwd: str) -> str:
    raw = arguments.get("path") if isinstance(arguments, Mapping) else None
    return os.path.join(cwd, raw) if isinstance(raw, str) else cwd


def _with_text(result: dict[str, Any], text: str) -> dict[str, Any]:
    out = copy.deepcopy(result)
    out["content"] = [{"type": "text", "text": text}]
    return out


def _restyle(
    success: Callable[[Any, str, Mapping[str, Any]], str],
    error: Callable[[Any, str, Mapping[str, Any], str], str],
) -> Present:
    """A presenter from a success wording (given the observation) and an error wording (given
    the details and the reference's message)."""

    def present(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
        details = result.get("details", {})
        if result.get("isError"):
            message = "".join(b.get("text", "") for b in result["content"])
            return _with_text(result, error(arguments, cwd, details, message))
        return _with_text(result, success(arguments, cwd, details["observation"]))

    return present


def _snippet(content: str, first: int | None, lines: int = 4, width: int = 120) -> str:
    """``cat -n`` of a few lines of the new content, from the first changed one."""
    start = max(1, (first or 1) - 1)
    shown = content.removesuffix("\n").split("\n")[start - 1 : start - 1 + lines]
    return "\n".join(f"{n:>6}\t{line[:width]}" for n, line in enumerate(shown, start=start))


# --- tab_absolute: Claude Code ---------------------------------------------------------------


def _claude_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    path = obs["path"]
    if obs.get("created"):
        return f"File created successfully at: {path}"
    snippet = _snippet(arguments["content"], obs.get("first_changed_line"))
    return (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{snippet}"
    )


def _claude_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name = {"path": "file_path"}.get(bad[0], bad[0])
        issue = (
            f"The required parameter `{name}` is missing"
            if bad[1] == "missing"
            else f"The parameter `{name}` type is expected as `string` but provided as "
            f"`{_js_type(bad[2])}`"
        )
        body = f"Write failed due to the following issue:\n{issue}"
    elif details.get("error") == "is_directory":
        body = f"EISDIR: illegal operation on a directory, open '{details['path']}'"
    elif details.get("error") == "not_a_directory":
        body = f"ENOTDIR: not a directory, open '{_target(arguments, cwd)}'"
    else:
        body = re.sub(r"^path\b", "file_path", message)
    return f"<tool_use_error>{body}</tool_use_error>"


# --- header_first: Gemini CLI (write_file) -----------------------------------------------------


def _gemini_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    if obs.get("created"):
        return f"Successfully created and wrote to new file: {obs['path']}."
    return f"Successfully overwrote file: {obs['path']}."


def _gemini_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name = {"path": "file_path"}.get(bad[0], bad[0])
        if bad[1] == "missing":
            return f"params must have required property '{name}'"
        return f"params/{name} must be string"
    if details.get("error") == "is_directory":
        return f"Path is a directory, not a file: {details['path']}"
    if details.get("error") == "not_a_directory":
        return f"Error writing to file: ENOTDIR: not a directory, open '{_target(arguments, cwd)}'"
    return "Error writing to file: " + re.sub(r"^path\b", "file_path", message)


# --- raw_text: pi ----------------------------------------------------------------------------


def _pi_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    return f"Successfully wrote {obs['bytes_written']} bytes to {arguments['path']}"


def _pi_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name = bad[0]
        absent = not isinstance(arguments, Mapping) or name not in arguments
        problem = f"must have required property '{name}'" if absent else "must be string"
        received = json.dumps(arguments, indent=2, ensure_ascii=True)
        return (
            f'Validation failed for tool "write":\n  - {name}: {problem}\n\n'
            f"Received arguments:\n{received}"
        )
    if details.get("error") == "is_directory":
        return f"EISDIR: illegal operation on a directory, open '{details['path']}'"
    if details.get("error") == "not_a_directory":
        return f"ENOTDIR: not a directory, mkdir '{os.path.dirname(_target(arguments, cwd))}'"
    return message


# --- renamed_arguments: OpenCode -------------------------------------------------------------


def _opencode_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    return "Wrote file successfully."


def _opencode_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name = {"path": "filePath"}.get(bad[0], bad[0])
        issue = {
            "expected": "string",
            "code": "invalid_type",
            "path": [name],
            "message": f"Invalid input: expected string, received {_js_type(bad[2])}",
        }
        return (
            "The write tool was called with invalid arguments: "
            f"{json.dumps([issue], indent=2)}.\n"
            "Please rewrite the input so it satisfies the expected schema."
        )
    if details.get("error") == "is_directory":
        return f"Error: Path is a directory, not a file: {details['path']}"
    if details.get("error") == "not_a_directory":
        return f"Error: ENOTDIR: not a directory, mkdir '{details['path']}'"
    return "Error: " + re.sub(r"^path\b", "filePath", message)


# --- reworded_errors: Codex ------------------------------------------------------------------


def _codex_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    path = obs["path"]
    relative = os.path.relpath(path, cwd)
    shown = path if relative.startswith("..") else relative
    return f"Success. Updated the following files:\n{'A' if obs.get('created') else 'M'} {shown}"


def _codex_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name, kind, value = bad
        if kind == "missing":
            return f"failed to parse function arguments: missing field `{name}`"
        return (
            f"failed to parse function arguments: invalid type: {_rust_type(value)}, expected "
            f"a string for field `{name}`"
        )
    code = details.get("error")
    if code == "is_directory":
        return f"write failed: `{details['path']}` is a directory; name a file inside it instead"
    if code == "not_a_directory":
        return (
            f"write failed: cannot create the parent directory, `{details['path']}` exists and "
            "is not a directory"
        )
    if not isinstance(arguments, Mapping):
        return "failed to parse function arguments: expected an object with `path` and `content`"
    path, content = str(arguments.get("path")), str(arguments.get("content"))
    if code == "invalid_argument" and "\x00" in path:
        return "write failed: `path` has an interior NUL byte; no file can be named that way"
    if code == "invalid_argument" and not path.strip():
        return "write failed: `path` is blank; give the file to write"
    if code == "invalid_argument" and re.search("[\ud800-\udfff]", path):
        return "write failed: `path` is not valid Unicode (a lone surrogate); fix the name"
    if code == "invalid_argument" and re.search("[\ud800-\udfff]", content):
        return "write failed: `content` is not valid Unicode (a lone surrogate); fix the text"
    return f"write failed ({code}): {message}"


# --- tagged: Cursor --------------------------------------------------------------------------


def _cursor_success(arguments: Any, cwd: str, obs: Mapping[str, Any]) -> str:
    action = "created" if obs.get("created") else "overwritten"
    return (
        f'<write_result file_path="{obs["path"]}" action="{action}" '
        f'bytes="{obs["bytes_written"]}"/>'
    )


def _cursor_error(arguments: Any, cwd: str, details: Mapping[str, Any], message: str) -> str:
    bad = _bad_argument(arguments)
    if bad is not None:
        name = {"path": "file_path", "content": "contents"}[bad[0]]
        problem = "is required" if bad[1] == "missing" else "must be a string"
        return f"<error>Invalid arguments for write: `{name}` {problem}</error>"
    renamed = re.sub(r"^content\b", "contents", re.sub(r"^path\b", "file_path", message))
    return f"<error>{renamed}</error>"
