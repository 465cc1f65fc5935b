"""Serve the reference over the agenttools stdio protocol (JSON-RPC 2.0, one object per line).

Calls run on worker threads so that requests overlap and ``$/cancelRequest`` can reach a call in
flight; stdout is written under a lock, one whole line at a time.
"""

from __future__ import annotations

import io
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO

from .results import UnknownToolError
from .toolbox import ReferenceTools

PARSE_ERROR, INVALID_REQUEST, NO_METHOD, INVALID_PARAMS, INTERNAL = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)


class Server:
    def __init__(self, tools: Any, out: TextIO) -> None:
        self.tools = tools
        self.out = out
        self.write_lock = threading.Lock()
        self.cancels: dict[Any, threading.Event] = {}
        self.pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="agenttools-call")

    def send(self, message: dict[str, Any]) -> None:
        payload = {"jsonrpc": "2.0", **message}
        try:
            line = json.dumps(payload, ensure_ascii=False)
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate in a result: escape it
            line = json.dumps(payload, ensure_ascii=True)
        with self.write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    def handle_line(self, line: str) -> bool:
        """Handle one request line; return False when the server should stop."""
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            self.error(None, PARSE_ERROR, f"not JSON: {exc}")
            return True
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.error(None, INVALID_REQUEST, "expected a JSON-RPC 2.0 object")
            return True
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "$/cancelRequest":
            event = self.cancels.get(params.get("id")) if isinstance(params, dict) else None
            if event:
                event.set()
            return True
        if method == "initialize":
            self.send({"id": ident, "result": self.tools.initialize(params)})
        elif method == "configure":
            settings = params.get("settings") if isinstance(params, dict) else None
            if not isinstance(settings, dict):
                self.error(ident, INVALID_PARAMS, "configure needs params.settings (an object)")
            else:
                self.send({"id": ident, "result": self.tools.configure(settings)})
        elif method == "call":
            if not isinstance(params, dict) or not isinstance(params.get("tool"), str):
                self.error(ident, INVALID_PARAMS, "call needs params.tool, arguments and cwd")
            else:
                event = threading.Event()
                self.cancels[ident] = event
                self.pool.submit(self._call, ident, params, event)
        elif method == "shutdown":
            for event in list(self.cancels.values()):
                event.set()
            self.pool.shutdown(wait=True)
            self.tools.shutdown()
            self.send({"id": ident, "result": None})
            return False
        else:
            extra = self.tools.method(method) if isinstance(method, str) else None
            if extra is None:
                self.error(ident, NO_METHOD, f"unknown method {method!r}")
            else:
                self.pool.submit(self._extra, ident, extra, params)
        return True

    def _extra(self, ident: Any, method: Any, params: Any) -> None:
        try:
            self.send({"id": ident, "result": method(params, self.tools.services)})
        except (TypeError, ValueError, KeyError) as exc:
            self.error(ident, INVALID_PARAMS, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # the server must answer every request
            self.error(ident, INTERNAL, f"{type(exc).__name__}: {exc}")

    def _call(self, ident: Any, params: dict[str, Any], cancel: threading.Event) -> None:
        try:
            result = self.tools.call(
                params["tool"],
                params.get("arguments", {}),
                params.get("cwd", ""),
                params.get("env"),
                cancel,
            )
            self.send({"id": ident, "result": result})
        except UnknownToolError as exc:
            self.error(ident, INVALID_PARAMS, str(exc))
        except Exception as exc:  # the server must answer every request
            self.error(ident, INTERNAL, f"{type(exc).__name__}: {exc}")
        finally:
            self.cancels.pop(ident, None)


def serve(stdin: TextIO | None = None, stdout: TextIO | None = None, tools: Any = None) -> int:
    """Serve ``tools`` (any in-process implementation; the reference by default) on stdio."""
    if stdin is None and stdout is None:  # the wire is UTF-8 whatever the locale says
        for stream in (sys.stdin, sys.stdout):
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(encoding="utf-8")
    source = stdin or sys.stdin
    server = Server(tools if tools is not None else ReferenceTools(), stdout or sys.stdout)
    for line in source:
        if line.strip() and not server.handle_line(line):
            return 0
    server.pool.shutdown(wait=True)
    server.tools.shutdown()
    return 0
