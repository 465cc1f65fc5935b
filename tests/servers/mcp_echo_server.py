"""A tiny MCP tool server (the SDK's FastMCP / MCPServer) for the MCP adapter's tests.

``show`` answers with the arguments it received (text and structuredContent), so a test sees
exactly what the adapter's translation sent. The others exercise result conversion, failure,
configuration routing and process hygiene (``where`` tells the server's directory and HOME,
``spawn`` leaves children behind). Run as ``python mcp_echo_server.py``; it speaks MCP over
stdio. ``--stubborn`` makes it ignore SIGTERM and linger after its stdin closes (a server the
adapter must kill); ``--pidfile PATH`` writes its pid there; ``--crash`` exits at once.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
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
try:
    MCPError: Any = importlib.import_module("mcp.shared.exceptions").MCPError
except AttributeError:  # mcp 1.x
    McpError: Any = importlib.import_module("mcp.shared.exceptions").McpError
    ErrorData: Any = importlib.import_module("mcp.types").ErrorData

    def MCPError(code: int, message: str) -> Any:
        return McpError(ErrorData(code=code, message=message))


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
    timeout_ms: Any = ABSENT,
    start: Any = ABSENT,
    count: Any = ABSENT,
    expected: Any = ABSENT,
    directory: Any = ABSENT,
    env: Any = ABSENT,
    mode: Any = ABSENT,
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
        "timeout_ms": timeout_ms,
        "start": start,
        "count": count,
        "expected": expected,
        "directory": directory,
        "env": env,
        "mode": mode,
    }
    return {"received": {k: v for k, v in received.items() if v != ABSENT}}


@server.tool(structured_output=False)
def reply(text: str = "") -> str:
    """Answer with exactly ``text`` (for result post-processing and observation builders)."""
    return text


CONFIG: dict[str, Any] = {}


@server.tool()
def set_config(max_lines: Any = ABSENT, timeout_ms: Any = ABSENT) -> dict[str, Any]:
    """The server's own configuration tool: remembers what it is given."""
    given = {"max_lines": max_lines, "timeout_ms": timeout_ms}
    CONFIG.update({k: v for k, v in given.items() if v != ABSENT})
    return {"config": CONFIG}


@server.tool()
def get_config() -> dict[str, Any]:
    return {"config": CONFIG}


@server.tool()
def where() -> dict[str, Any]:
    """The server's working directory, HOME and pid."""
    return {"cwd": os.getcwd(), "home": os.environ.get("HOME"), "pid": os.getpid()}


@server.tool()
def spawn() -> dict[str, Any]:
    """Leave a child that ignores SIGTERM in the server's group and one in a session of its own."""
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", stubborn])
    escaped = subprocess.Popen([sys.executable, "-c", stubborn], start_new_session=True)
    return {"server": os.getpid(), "children": [child.pid, escaped.pid]}


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
def rpc_fail() -> str:
    """Answer with a JSON-RPC error instead of a tool result."""
    raise MCPError(-32602, "rpc_fail always refuses")


@server.tool()
async def slow(seconds: float = 30.0, directory: str = "") -> str:
    """Sleep, for timeouts and cancellation."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def die() -> str:
    """Exit the whole server at once."""
    sys.stderr.write("echo-server: dying on request\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def die_soon() -> str:
    """Answer, then exit a moment later: a server that dies between two calls."""
    threading.Timer(0.2, os._exit, args=(4,)).start()
    return "answered; exiting in 0.2 s"


if __name__ == "__main__":
    if "--crash" in sys.argv:
        sys.stderr.write("echo-server: refusing to start\n")
        sys.exit(2)
    if "--pidfile" in sys.argv:
        with open(sys.argv[sys.argv.index("--pidfile") + 1], "a") as f:
            f.write(json.dumps(os.getpid()) + "\n")
    if "--stubborn" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server.run()
    if "--stubborn" in sys.argv:
        time.sleep(600)  # stdin closed: a polite server would exit now
