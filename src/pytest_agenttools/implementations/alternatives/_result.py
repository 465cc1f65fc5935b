"""Reading and rewriting a reference result as an alternative presents it (shared by the
styles of every tool whose result holds one text block and an observation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def observation(result: Mapping[str, Any]) -> dict[str, Any] | None:
    found = result.get("details", {}).get("observation")
    return found if isinstance(found, dict) else None


def text_of(result: Mapping[str, Any]) -> str:
    """The first text block's text ('' when there is none)."""
    for block in result.get("content", []):
        if block.get("type") == "text":
            return str(block.get("text", ""))
    return ""


def set_text(result: dict[str, Any], text: str) -> dict[str, Any]:
    """``result`` with its first text block replaced by ``text`` (one added when none)."""
    for block in result.get("content", []):
        if block.get("type") == "text":
            block["text"] = text
            return result
    result.setdefault("content", []).insert(0, {"type": "text", "text": text})
    return result


def argument(arguments: Any, name: str) -> Any:
    """One argument of a call, None when the arguments are not an object."""
    return arguments.get(name) if isinstance(arguments, Mapping) else None
