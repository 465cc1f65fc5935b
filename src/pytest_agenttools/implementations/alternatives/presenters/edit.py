"""How each alternative presents `edit` results, and what its manifest says about `edit`.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

Each style words its results the way the real tool it is modelled on does, with the facts the
spec asks of every correct tool (the file, the argument in its own names, the count and lines
of an ambiguous match, both overlapping edits, a hint to read again).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]

#: OpenCode's names for the canonical arguments
OPENCODE = {
    "file_path": "filePath",
    "old_string": "oldString",
    "new_string": "newString",
    "replace_all": "replaceAll",
}
#: pi's names (pi has no replace_all; the alternative keeps the reference's)
PI = {"file_path": "path", "old_string": "oldText", "new_string": "newText"}
CANONICAL = re.compile(r"\b(file_path|old_string|new_string|replace_all)\b")


def _details(result: Mapping[str, Any]) -> Mapping[str, Any]:
    details = result.get("details")
    return details if isinstance(details, Mapping) else {}


def _text(result: Mapping[str, Any]) -> str:
    return "\n".join(
        str(b.get("text", "")) for b in result.get("content", []) if b.get("type") == "text"
    )


def _set_text(result: dict[str, Any], text: str) -> dict[str, Any]:
    result["content"] = [{"type": "text", "text": text}]
    return result


def _arg(arguments: Any, name: str) -> Any:
    return arguments.get(name) if isinstance(arguments, Mapping) else None


def _absolute(arguments: Any, cwd: str, result: Mapping[str, Any]) -> str:
    """The edited file's absolute path: the observation's, else the argument made absolute."""
    observation = _details(result).get("observation")
    if isinstance(observation, Mapping) and isinstance(observation.get("path"), str):
        return str(observation["path"])
    raw = _arg(arguments, "file_path")
    if not isinstance(raw, str) or not raw:
        return cwd
    return os.path.normpath(raw if os.path.isabs(raw) else os.path.join(cwd, raw))


def _relative(path: str, cwd: str) -> str:
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith("..") else relative


def _as_given(arguments: Any, cwd: str, result: Mapping[str, Any]) -> str:
    raw = _arg(arguments, "file_path")
    return raw if isinstance(raw, str) and raw.strip() else _absolute(arguments, cwd, result)


def _rename(text: str, names: Mapping[str, str]) -> str:
    return CANONICAL.sub(lambda m: names.get(m.group(1), m.group(1)), text)


def _bare(message: str) -> str:
    """The reference's message without its ``edit: `` / ``edits[i]: `` lead."""
    return re.sub(r"^(?:edit: )?", "", message)


def _lines(details: Mapping[str, Any]) -> str:
    return ", ".join(str(n) for n in details.get("lines", []))


def _overlap(details: Mapping[str, Any], base: int = 0) -> tuple[int, int]:
    pair = details.get("edits")
    low, high = pair if isinstance(pair, list) and len(pair) == 2 else (0, 1)
    return int(low) + base, int(high) + base


def _missing_file(details: Mapping[str, Any]) -> bool:
    return details.get("error") == "not_found" and details.get("missing") == "file"


def _snippet(path: str, around: int | None, width: int = 4) -> str:
    """Claude Code's `cat -n` view of the lines around the change (tab after the number)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except OSError:
        return ""
    if data.startswith(b"\xff\xfe"):
        text = data[2:].decode("utf-16-le", "replace")
    else:
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.split("\n")
    first = max(1, (around or 1) - width)
    last = min(len(lines), (around or 1) + width)
    return "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(first, last + 1))


# --- tab_absolute: Claude Code ---------------------------------------------------------------


def _claude(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _absolute(arguments, cwd, result)
    if not result.get("isError"):
        observation = details.get("observation") or {}
        edits = _arg(arguments, "edits")
        if isinstance(edits, list):
            done = "\n".join(
                f"{i}. Replaced {str(e.get('old_string'))[:40]!r} with "
                f"{str(e.get('new_string'))[:40]!r}"
                for i, e in enumerate(edits, 1)
                if isinstance(e, Mapping)
            )
            return _set_text(result, f"Applied {len(edits)} edits to {path}:\n{done}")
        if _arg(arguments, "replace_all") is True:
            return _set_text(
                result,
                f"The file {path} has been updated. All occurrences of "
                f"{_arg(arguments, 'old_string')!r} were successfully replaced with "
                f"{_arg(arguments, 'new_string')!r}.",
            )
        snippet = _snippet(path, observation.get("first_changed_line"))
        return _set_text(
            result,
            f"The file {path} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n{snippet}",
        )
    code = details.get("error")
    old = _arg(arguments, "old_string")
    if _missing_file(details):
        text = f"File does not exist: {path}"
    elif code == "not_found":
        text = (
            f"String to replace not found in file {path}. Read the file again to see its "
            f"current content.\nString: {old}"
        )
    elif code == "ambiguous":
        text = (
            f"Found {details.get('occurrences')} matches of the string to replace, but "
            "replace_all is false. To replace all occurrences, set replace_all to true. To "
            "replace only one occurrence, please provide more context to uniquely identify the "
            f"instance. Matches start at lines {_lines(details)}.\nString: {old}"
        )
    elif code == "no_change":
        text = "No changes to make: old_string and new_string are exactly the same."
    elif code == "overlap":
        first, second = _overlap(details, base=1)
        text = f"Edits {first} and {second} overlap in {path}; merge them into one edit."
    elif code == "invalid_argument":
        text = (
            f"InputValidationError: Edit failed due to the following issue:\n{_bare(_text(result))}"
        )
    else:
        text = _text(result)
    return _set_text(result, f"<tool_use_error>{text}</tool_use_error>")


# --- header_first: Gemini CLI ----------------------------------------------------------------


def _gemini(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _absolute(arguments, cwd, result)
    if not result.get("isError"):
        count = (details.get("observation") or {}).get("replacements")
        return _set_text(result, f"Successfully modified file: {path} ({count} replacements).")
    code = details.get("error")
    if _missing_file(details):
        text = f"File not found: {path}. Cannot apply edit."
    elif code == "not_found":
        text = (
            f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The "
            "exact text in old_string was not found. Ensure you're not escaping content "
            "incorrectly and check whitespace, indentation, and context. Use read_file tool to "
            "verify."
        )
    elif code == "ambiguous":
        text = (
            f"Failed to edit, expected 1 occurrence but found {details.get('occurrences')} for "
            f"old_string in file: {path} (occurrences start at lines {_lines(details)})."
        )
    elif code == "no_change":
        text = f"No changes to apply. The old_string and new_string are identical in file: {path}"
    elif code == "overlap":
        first, second = _overlap(details)
        text = f"Failed to edit: edits[{first}] and edits[{second}] overlap in {path}."
    elif code == "invalid_argument":
        text = f"Invalid parameters provided. Reason: {_bare(_text(result))}"
    else:
        text = f"Error: {_text(result)}"
    return _set_text(result, text)


# --- raw_text: pi ----------------------------------------------------------------------------


def _pi(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _as_given(arguments, cwd, result)
    if not result.get("isError"):
        count = (details.get("observation") or {}).get("replacements")
        return _set_text(result, f"Successfully replaced {count} block(s) in {path}.")
    code = details.get("error")
    where = f"edits[{details['edit']}]" if isinstance(details.get("edit"), int) else "the text"
    if _missing_file(details):
        text = f"File not found: {path}"
    elif code == "not_found":
        text = (
            f"Could not find {where} in {path}. The oldText must match exactly including all "
            "whitespace and newlines. Read the file again if it may have changed."
        )
    elif code == "ambiguous":
        text = (
            f"Found {details.get('occurrences')} occurrences of {where} in {path} (starting at "
            f"lines {_lines(details)}). The text must be unique. Please provide more context "
            "to make it unique."
        )
    elif code == "no_change":
        text = (
            f"No changes made to {path}. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected."
        )
    elif code == "empty_old_string":
        text = f"oldText must not be empty in {path}."
    elif code == "overlap":
        first, second = _overlap(details)
        text = (
            f"edits[{first}] and edits[{second}] overlap in {path}. Merge them into one edit or "
            "target disjoint regions."
        )
    elif code == "invalid_argument":
        text = f'Validation failed for tool "edit":\n  - {_rename(_bare(_text(result)), PI)}'
    else:
        text = _rename(_text(result), PI)
    return _set_text(result, text)


# --- renamed_arguments: OpenCode -------------------------------------------------------------


def _opencode(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _absolute(arguments, cwd, result)
    if not result.get("isError"):
        return _set_text(result, f"Edit applied successfully to {_relative(path, cwd)}.")
    code = details.get("error")
    if _missing_file(details):
        text = f"File {path} not found"
    elif code == "not_found":
        text = (
            f"oldString not found in content of {_relative(path, cwd)}. Read the file again "
            "before editing."
        )
    elif code == "ambiguous":
        text = (
            f"Found multiple matches for oldString ({details.get('occurrences')}, starting at "
            f"lines {_lines(details)}). Provide more surrounding lines in oldString to identify "
            "the correct match."
        )
    elif code == "no_change":
        text = "oldString and newString must be different"
    elif code == "empty_old_string":
        text = "oldString must not be empty"
    elif code == "invalid_argument":
        text = (
            "The edit tool was called with invalid arguments: "
            f"{_rename(_bare(_text(result)), OPENCODE)}"
        )
    else:
        text = _rename(_text(result), OPENCODE)
    return _set_text(result, text)


# --- reworded_errors: Codex ------------------------------------------------------------------


def _argument_problem(message: str) -> str:
    named = list(dict.fromkeys(CANONICAL.findall(message) + re.findall(r"\bedits\b", message)))
    fields = " and ".join(f"`{n}`" for n in named) or "the arguments"
    if "missing" in message:
        return f"edit rejected: the {fields} field is required."
    if "must be" in message:
        return f"edit rejected: the {fields} field has the wrong type."
    return f"edit rejected: check the {fields} field(s)."


def _codex(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _absolute(arguments, cwd, result)
    if not result.get("isError"):
        return _set_text(result, f"Success. Updated the following files:\nM {_relative(path, cwd)}")
    code = details.get("error")
    message = _text(result)
    if _missing_file(details):
        text = f"{path}: no such file; nothing was changed."
    elif code == "not_found":
        text = (
            f"Failed to find expected lines in {path}:\n{_arg(arguments, 'old_string')}\n"
            "Re-read the file and retry with its current text."
        )
    elif code == "ambiguous":
        text = (
            f"The text to replace matches {details.get('occurrences')} places in {path} "
            f"(first at lines {_lines(details)}); widen it until it matches once."
        )
    elif code == "is_directory":
        text = f"{path} names a folder; point the edit at a file inside it."
    elif code == "no_change":
        text = "Nothing to do: the replacement equals the original text."
    elif code == "empty_old_string":
        text = "edit rejected: the `old_string` field is empty; to create a file use write."
    elif code == "overlap":
        first, second = _overlap(details)
        text = f"Two edits collide: #{first} and #{second} touch the same text in {path}."
    elif code == "binary_file":
        text = f"{path} holds binary data; refusing to edit it."
    elif code == "invalid_argument":
        text = _argument_problem(message)
    else:
        text = f"edit failed: {message}"
    return _set_text(result, text)


# --- tagged: Cursor --------------------------------------------------------------------------


def _cursor(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
    details = _details(result)
    path = _relative(_absolute(arguments, cwd, result), cwd)
    if result.get("isError"):
        return _set_text(result, f'<error tool="edit">{_text(result)}</error>')
    count = (details.get("observation") or {}).get("replacements")
    return _set_text(
        result,
        f'<edit_result path="{path}" replacements="{count}">The edit was applied.</edit_result>',
    )
