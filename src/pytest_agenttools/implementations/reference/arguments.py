"""Argument checking shared by every tool: clear errors for missing, unknown or mistyped values.

Models send strings for numbers, misspell names and forget required fields; hostile or broken
clients send NaN, numbers of a thousand digits, NUL bytes and lone surrogates. Every such value
is refused here, in one place, with an error that names the argument, says what was wrong in
JSON's own words (a model speaks JSON, not Python) and what the tool accepts, so no tool ever
meets a value it cannot handle and no Python exception text reaches a result.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.implementations.reference.results import ToolError

TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
}
#: the largest integer every JSON implementation carries exactly (2**53 - 1); any number beyond
#: it is refused as absurd, whatever the argument (ROBUST-ARGS-03)
MAX_NUMBER = 2**53 - 1
#: arguments whose strings reach the operating system (paths, ripgrep patterns, a command line):
#: NUL cannot be passed there and a lone surrogate cannot be encoded (ROBUST-ARGS-02)
OS_STRINGS = frozenset({"path", "file_path", "pattern", "glob", "command"})
PREVIEW_CHARS = 40
SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Param:
    """One accepted argument.

    ``os_string``: the value goes to the operating system, so NUL and lone surrogates are
    refused (``None``: decided by the name, see ``OS_STRINGS``). A ``float`` kind accepts
    integers too; an ``int`` kind accepts a float with no fractional part (JSON has one number
    type: ``2.0`` and ``2`` are the same value to a JavaScript client).
    """

    name: str
    kind: type | tuple[type, ...]
    required: bool = False
    os_string: bool | None = None


def _expected(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(TYPE_NAMES.get(k, k.__name__) for k in kinds)


def json_type(value: Any) -> str:
    """The JSON name of a value's type: what a client sent, in its own vocabulary."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "value"


def preview(value: Any) -> str:
    """A short, bounded rendering of any value for an error message (never a deep repr)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        digits = len(str(value)) if abs(value) < 10**PREVIEW_CHARS else None
        return str(value) if digits is not None else f"a number of {_digits(value)} digits"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        shown = json.dumps(value[:PREVIEW_CHARS], ensure_ascii=True)
        return shown if len(value) <= PREVIEW_CHARS else f'{shown[:-1]}..." ({len(value)} chars)'
    if isinstance(value, list | tuple):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, Mapping):
        return f"an object with {len(value)} key{'' if len(value) == 1 else 's'}"
    return "a value"


def described(value: Any) -> str:
    """Type and preview together: ``string "abc"``, ``number NaN``, ``an array of 3 items``."""
    shown = preview(value)
    if value is None or isinstance(value, list | tuple | Mapping) or shown.startswith("a "):
        return shown
    return f"{json_type(value)} {shown}"


def _digits(value: int) -> int:
    return max(1, math.floor(math.log10(abs(value))) + 1) if value else 1


def _fits(value: Any, kinds: tuple[type, ...]) -> tuple[bool, Any]:
    """Whether ``value`` is of one of ``kinds`` (booleans are not numbers), and the value to
    use (an integral float becomes an int where an integer is expected)."""
    if isinstance(value, bool):
        return bool in kinds, value
    for kind in kinds:
        if kind is bool:
            continue
        if kind is float and isinstance(value, int | float):
            return True, value
        if kind is int and isinstance(value, float) and value.is_integer():
            return True, int(value)
        if isinstance(value, kind):
            return True, value
    return False, value


def _check_number(tool: str, name: str, value: int | float) -> None:
    """Non-finite and absurd numbers are refused for every argument (ROBUST-ARGS-03)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} must be a finite number, got {preview(value)}.",
        )
    if abs(value) > MAX_NUMBER:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} is too large: {preview(value)}; numbers must lie between "
            f"-{MAX_NUMBER} and {MAX_NUMBER}.",
        )


def _check_os_string(tool: str, name: str, value: str) -> None:
    """A NUL or a lone surrogate cannot reach a path, a pattern or a command (ROBUST-ARGS-02)."""
    where = value.find("\0")
    if where >= 0:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} contains a NUL character (at position {where}); a path, pattern "
            "or command cannot hold one. Remove it.",
        )
    found = SURROGATE.search(value)
    if found:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {name} contains a lone surrogate (U+{ord(found.group()):04X} at position "
            f"{found.start()}), which is not a character and cannot be encoded. Send valid "
            "Unicode.",
        )


def check_value(tool: str, param: Param, value: Any) -> Any:
    """One present value checked against ``param``; returns the value to use."""
    kinds = param.kind if isinstance(param.kind, tuple) else (param.kind,)
    ok, value = _fits(value, kinds)
    if not ok:
        raise ToolError(
            "invalid_argument",
            f"{tool}: {param.name} must be {_expected(param.kind)}, got {described(value)}.",
        )
    os_string = param.os_string if param.os_string is not None else param.name in OS_STRINGS
    if isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(tool, param.name, value)
    elif isinstance(value, str) and os_string:
        _check_os_string(tool, param.name, value)
    elif isinstance(value, list) and os_string:
        for item in value:
            if not isinstance(item, str):
                raise ToolError(
                    "invalid_argument",
                    f"{tool}: {param.name} must hold strings only, got {described(item)} in "
                    "the array.",
                )
            _check_os_string(tool, param.name, item)
    return value


def check(tool: str, params: tuple[Param, ...], arguments: Any) -> dict[str, Any]:
    """Return the arguments with every value checked against ``params``."""
    # ROBUST-ARGS-04, ROBUST-ARGS-05: megabyte strings and deep nesting are judged by type and
    # size, never walked or echoed whole
    if not isinstance(arguments, Mapping):
        raise ToolError(
            "invalid_argument",
            f"{tool}: arguments must be an object, got {described(arguments)}.",
        )
    known = {p.name: p for p in params}
    unknown = sorted(str(key) for key in arguments if key not in known)
    if unknown:
        shown = ", ".join(preview(name) for name in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ToolError(
            "invalid_argument",
            f"{tool}: unknown argument(s) {shown}{more}. "
            f"Accepted: {', '.join(p.name for p in params)}.",
        )
    checked: dict[str, Any] = {}
    for param in params:
        value = arguments.get(param.name)
        if value is None:
            if param.required:
                raise ToolError(
                    "invalid_argument",
                    f"{tool}: missing required argument {param.name!r} ({_expected(param.kind)}).",
                )
            continue
        checked[param.name] = check_value(tool, param, value)
    return checked
