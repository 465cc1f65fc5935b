"""Result builders: every tool answers with plain, JSON-able dicts in the MCP shape.

Tools raise ``ToolError`` for expected failures; the dispatcher turns it into an error result,
so no tool has to assemble error dicts by hand and no failure escapes as a traceback.
"""

from __future__ import annotations

import base64
from typing import Any


class ToolError(Exception):
    """An expected failure: ``code`` is machine-readable, the message says what to do next."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class ProtocolFault(Exception):
    """A fault of the call itself, not of the tool: the server answers it with a JSON-RPC
    error (``jsonrpc_code``), and the in-process adapter raises it as a ProtocolError."""

    jsonrpc_code = -32602


class UnknownToolError(ProtocolFault):
    """A tool name this implementation does not have: a protocol fault, not a tool result."""


class InvalidParamsError(ProtocolFault):
    """Malformed ``call`` params outside the tool's arguments (``env`` not an object of
    strings): the caller's harness is broken, not the model's call."""


def text_result(text: str, **details: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False, "details": details}


def error_result(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": message}],
        "isError": True,
        "details": {"error": code, **details},
    }


def image_block(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}
