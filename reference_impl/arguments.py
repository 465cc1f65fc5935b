"""Argument checking shared by every tool: clear errors for missing, unknown or mistyped values.

Models send strings for numbers, misspell names and forget required fields; each case gets an
error that says exactly what was wrong and what the tool accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .results import ToolError

TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "a list"}


@dataclass(frozen=True)
class Param:
    name: str
    kind: type | tuple[type, ...]
    required: bool = False


def _expected(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(TYPE_NAMES.get(k, k.__name__) for k in kinds)


def check(tool: str, params: tuple[Param, ...], arguments: Any) -> dict[str, Any]:
    """Return the arguments with every value checked against ``params``."""
    if not isinstance(arguments, Mapping):
        raise ToolError(
            "invalid_argument",
            f"{tool}: arguments must be an object, got {type(arguments).__name__}.",
        )
    known = {p.name: p for p in params}
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise ToolError(
            "invalid_argument",
            f"{tool}: unknown argument(s) {', '.join(unknown)}. "
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
        kinds = param.kind if isinstance(param.kind, tuple) else (param.kind,)
        is_bool = isinstance(value, bool)
        ok = any(
            (isinstance(value, k) and not (is_bool and k is int)) or (k is bool and is_bool)
            for k in kinds
        )
        if not ok:
            raise ToolError(
                "invalid_argument",
                f"{tool}: {param.name} must be {_expected(param.kind)}, "
                f"got {type(value).__name__} {value!r:.40}.",
            )
        checked[param.name] = value
    return checked
