"""A tiny MCP tool server (the SDK's FastMCP / MCPServer) for the MCP adapter's tests.

``show`` answers with the arguments it received (text and structuredContent), so a test sees
exactly what the adapter's translation sent. The others exercise result conversion and failure.
Run as ``python mcp_echo_server.py``; it speaks MCP over stdio.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import Any

try:  # mcp 2.x: FastMCP is MCPServer
    _sdk: Any = importlib.import_module("mcp.server.mcpserver")
    _errors: Any = importlib.import_module("mcp.server.mcpserver.exceptions")
    FastMCP: Any = _sdk.MCPServer
except ImportError:  # mcp 1.x
    _sdk = importlib.import_module("mcp.server.fastmcp")
    _errors = importlib.import_module("mcp.server.fastmcp.exceptions")
    FastMCP = _sdk.FastMCP
Image: Any = _sdk.Image
Audio: Any = getattr(_sdk, "Audio", None)
ToolError: Any = _errors.ToolError

ABSENT = "<absent>"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = FastMCP("echo-server")


@server.tool()
def show(
    path: Any = ABSENT,
    head: Any = ABSENT,
    content: Any = ABSENT,
    edits: Any = ABSENT,
    dryRun: Any = ABSENT,
    offset: Any = ABSENT,
    replace_all: Any = ABSENT,
) -> dict[str, Any]:
    """Answer with the arguments received (those not left at their default)."""
    received = {
        "path": path,
        "head": head,
        "content": content,
        "edits": edits,
        "dryRun": dryRun,
        "offset": offset,
        "replace_all": replace_all,
    }
    return {"received": {k: v for k, v in received.items() if v != ABSENT}}


@server.tool(structured_output=False)
def media() -> list[Any]:
    """A text, an image and (with mcp 2) an audio block."""
    blocks: list[Any] = ["caption", Image(data=PNG, format="png")]
    if Audio is not None:
        blocks.append(Audio(data=b"RIFF0000WAVE", format="wav"))
    return blocks


@server.tool()
def fail(message: str = "it broke") -> str:
    """Raise: the SDK turns it into an isError result."""
    raise ToolError(message)


@server.tool()
async def slow(seconds: float = 30.0) -> str:
    """Sleep, for timeouts and cancellation."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def die() -> str:
    """Exit the whole server at once."""
    sys.stderr.write("echo-server: dying on request\n")
    sys.stderr.flush()
    os._exit(3)


if __name__ == "__main__":
    if "--crash" in sys.argv:
        sys.stderr.write("echo-server: refusing to start\n")
        sys.exit(2)
    server.run()
