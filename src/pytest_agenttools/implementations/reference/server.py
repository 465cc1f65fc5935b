"""Serve the reference over the agenttools stdio protocol (JSON-RPC 2.0, one object per line).

Calls run on worker threads so that requests overlap and ``$/cancelRequest`` can reach a call in
flight; stdout is written under a lock, one whole line at a time.

The read loop survives any line (ROBUST-LINE-01): it reads bytes, at most ``max_line_bytes`` of a
line (a longer one is read and dropped in pieces, so a 1 GB line costs no memory), and answers
what it cannot use with the JSON-RPC code for it: -32700 for bytes that are not UTF-8 JSON
(NaN and Infinity are not JSON; nesting too deep to parse), -32600 for a request of the wrong
shape (an ``id`` that is not a string, an integer or null is answered with id null,
ROBUST-ID-01). Notifications are never answered. When stdin closes, or on ``shutdown``, every
call in flight is cancelled, the tools clean up (processes, temp files) and the server returns
(ROBUST-EOF-01).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, BinaryIO

from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.arguments import described, json_type, preview
from pytest_agenttools.implementations.reference.results import ProtocolFault
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

PARSE_ERROR, INVALID_REQUEST, NO_METHOD, INVALID_PARAMS, INTERNAL = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
#: the longest request line read whole; longer lines are answered -32600 and dropped
MAX_LINE_BYTES = 64 * 1024 * 1024
#: integer literals longer than this are not converted (quadratic in CPython); they become
#: infinities, which every check refuses as a number out of range
MAX_INT_DIGITS = 4300
#: how long shutdown waits for cancelled calls to answer before cleaning up under them
SHUTDOWN_GRACE = 5.0
DRAIN_CHUNK = 1024 * 1024
#: the id at the start of a line too long to parse, so its caller still gets an answer
LEADING_ID = re.compile(
    rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*[,}]'
)
log = logging.getLogger("agenttools.reference")


@dataclass(frozen=True)
class TooLong:
    """A line beyond the limit (or, with ``out_of_memory``, one the server had no memory to
    read whole): its first bytes (to find an id) and its full length."""

    head: bytes
    size: int
    out_of_memory: bool = False


def _drain(stream: BinaryIO, size: int) -> tuple[int, bool]:
    """Read and drop the rest of a line in pieces; its total size and whether input ended."""
    while True:
        piece = stream.readline(DRAIN_CHUNK)
        size += len(piece)
        if not piece:
            return size, True
        if piece.endswith(b"\n"):
            return size, False


def read_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | TooLong]:
    """Each line of ``stream`` (newline kept), or a TooLong for one longer than ``limit`` (or
    too long for the memory left)."""
    # ROBUST-LINE-02: a line over the cap is drained in pieces and answered, never held whole
    step = min(DRAIN_CHUNK, limit + 1)
    while True:
        line = stream.readline(step)
        if not line:
            return
        if line.endswith(b"\n") or len(line) < step:
            yield line
            continue
        yield _long_line(stream, line, limit)


def _long_line(stream: BinaryIO, first: bytes, limit: int) -> bytes | TooLong:
    """The rest of a line longer than one piece, gathered piece by piece so that running out
    of memory on the way leaves the stream at a known place: the line is still read to its
    end (and dropped), and the next line is read as usual."""
    head, size = first[:4096], len(first)
    whole: bytearray | None
    try:
        whole = bytearray(first)
    except MemoryError:
        whole = None
    del first
    while size <= limit:
        piece = stream.readline(min(DRAIN_CHUNK, limit + 1 - size))
        size += len(piece)
        if whole is not None:
            try:
                whole += piece
            except MemoryError:
                whole = None
        if not piece or piece.endswith(b"\n"):
            if whole is None:
                return TooLong(head, size, out_of_memory=True)
            return whole  # type: ignore[return-value]  # a bytearray parses as bytes do
    del whole
    size, _ = _drain(stream, size)
    return TooLong(head, size)


def _leading_id(head: bytes) -> Any:
    """The id at the start of a line that cannot be parsed whole, else None."""
    found = LEADING_ID.match(head[:4096])
    return json.loads(found.group(1)) if found else None


def out_of_memory_message(size: int) -> str:
    return (
        f"the server ran out of memory reading a request line of {size} bytes, so the request "
        "was not run; the server is still serving. Send less in one request, or give the "
        "server more memory (its address-space limit, `ulimit -v`)."
    )


def exhausted_message(exc: BaseException, who: str) -> str:
    """What ran out, when ``exc`` is a resource running out (memory, threads); else ""."""
    if isinstance(exc, MemoryError):
        return (
            f"{who} ran out of memory and did not complete; the server is still serving. "
            "Retry with a smaller input, or give the server more memory."
        )
    if isinstance(exc, RuntimeError) and "thread" in str(exc):
        return (
            f"{who} could not start a thread (the process is at its thread limit, "
            "`ulimit -u`, or out of memory for thread stacks); the request was not run. "
            "Retry when calls in flight have finished."
        )
    return ""


def valid_id(value: Any) -> bool:
    """JSON-RPC 2.0: an id is a string, an integer (not a boolean) or null."""
    return value is None or isinstance(value, str) or type(value) is int


def _parse_int(text: str) -> int | float:
    if len(text) - text.startswith("-") > MAX_INT_DIGITS:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def parse(line: bytes) -> Any:
    """A request line as JSON; ValueError (with a message for the client) when it is not."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = line[exc.start]
        raise ValueError(f"the line is not UTF-8 (byte {exc.start} is 0x{bad:02x})") from None
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("the line is nested too deeply to parse") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"the line is not JSON ({exc.msg} at column {exc.colno})") from None


class Server:
    def __init__(self, tools: Any, out: BinaryIO, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.tools = tools
        self.out = out
        self.max_line_bytes = max_line_bytes
        self.write_lock = threading.Lock()
        self.state_lock = threading.Lock()
        self.cancels: dict[Any, threading.Event] = {}
        self.futures: set[Future[None]] = set()
        self.pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="agenttools-call")
        self.out_closed = False
        self.stopped = False

    def send(self, message: dict[str, Any]) -> None:
        payload = {"jsonrpc": "2.0", **message}
        try:
            data = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate in a result: escape it
            data = json.dumps(payload, ensure_ascii=True, allow_nan=False).encode("ascii")
        except (ValueError, TypeError, RecursionError):
            log.error("cannot encode an answer", exc_info=True)
            ident = payload.get("id")
            fallback = {
                "jsonrpc": "2.0",
                "id": ident if valid_id(ident) else None,
                "error": {"code": INTERNAL, "message": "internal error: the answer is not JSON"},
            }
            data = json.dumps(fallback, ensure_ascii=True).encode("ascii")
        with self.write_lock:
            if self.out_closed:
                return
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (OSError, ValueError):  # nobody reads our answers any more
                self.out_closed = True

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    def handle_line(self, line: bytes | TooLong) -> bool:
        """Handle one request line, whatever it holds; return False when the server stops."""
        try:
            return self._handle_line(line)
        except MemoryError:  # ROBUST: running out of memory on a line is answered, not fatal
            size = line.size if isinstance(line, TooLong) else len(line)
            head = line.head if isinstance(line, TooLong) else line[:4096]
            del line
            self.error(_leading_id(head), INTERNAL, out_of_memory_message(size))
            return True

    def _handle_line(self, line: bytes | TooLong) -> bool:
        # ROBUST-FUZZ-02: whatever the line, it gets its answer and the loop goes on
        if isinstance(line, TooLong):
            if line.out_of_memory:
                self.error(_leading_id(line.head), INTERNAL, out_of_memory_message(line.size))
                return True
            self.error(
                _leading_id(line.head),
                INVALID_REQUEST,
                f"the request line is {line.size} bytes long; this server reads lines of at "
                f"most {self.max_line_bytes} bytes. Send less in one request (write a large "
                "file in parts: write the first part, then append with bash or edit), or "
                "start the server with a higher limit: `agenttools serve --max-line-bytes N`.",
            )
            return True
        if not line or line.isspace():
            return True
        try:
            message = parse(line)
        except ValueError as exc:
            self.error(None, PARSE_ERROR, str(exc))
            return True
        try:
            return self.handle(message)
        except Exception:  # the loop must survive any line
            log.error("unexpected failure handling a request", exc_info=True)
            ident = message.get("id") if isinstance(message, dict) else None
            self.error(ident if valid_id(ident) else None, INTERNAL, "internal error")
            return True

    def handle(self, message: Any) -> bool:
        # ROBUST-ID-02: a notification (no id) is never answered;
        # ROBUST-METHOD-01: an unknown method is -32601
        if isinstance(message, list):
            self.error(None, INVALID_REQUEST, "batch requests are not supported; send objects")
            return True
        if not isinstance(message, dict):
            self.error(
                None, INVALID_REQUEST, f"a request must be a JSON object, got {json_type(message)}"
            )
            return True
        is_request = "id" in message
        ident = message.get("id")
        if not valid_id(ident):
            self.error(
                None,
                INVALID_REQUEST,
                f"id must be a string, an integer or null, got {described(ident)}",
            )
            return True
        method, params = message.get("method"), message.get("params")
        problem = None
        if message.get("jsonrpc") != "2.0":
            problem = 'expected "jsonrpc": "2.0"'
        elif not isinstance(method, str):
            problem = f"method must be a string, got {json_type(method)}"
        elif params is not None and not isinstance(params, dict | list):
            problem = f"params must be an object or an array, got {json_type(params)}"
        if problem is not None:
            if is_request:
                self.error(ident, INVALID_REQUEST, problem)
            return True
        assert isinstance(method, str)
        if not is_request:  # a notification: never answered
            if method == "$/cancelRequest" and isinstance(params, dict):
                self.cancel(params.get("id"))
            return True
        return self.dispatch(ident, method, params if params is not None else {})

    def cancel(self, ident: Any) -> None:
        if valid_id(ident):
            event = self.cancels.get(ident)
            if event is not None:
                event.set()

    def dispatch(self, ident: Any, method: str, params: Any) -> bool:
        if method == "shutdown":
            self.stop()
            self.send({"id": ident, "result": None})
            return False
        if not isinstance(params, dict):
            self.error(ident, INVALID_PARAMS, f"{method} takes its params as an object")
            return True
        if method == "initialize":
            self.send({"id": ident, "result": self.tools.initialize(params)})
        elif method == "configure":
            settings = params.get("settings")
            if not isinstance(settings, dict):
                self.error(ident, INVALID_PARAMS, "configure needs params.settings (an object)")
            else:
                self.send({"id": ident, "result": self.tools.configure(settings)})
        elif method == "call":
            self.start_call(ident, params)
        else:
            lookup = getattr(self.tools, "method", None)
            extra = lookup(method) if lookup is not None else None
            if extra is None:
                self.error(ident, NO_METHOD, f"unknown method {preview(method)}")
            else:
                self.submit(ident, self._extra, ident, method, extra, params)
        return True

    def start_call(self, ident: Any, params: dict[str, Any]) -> None:
        # ROBUST-PARAMS-01: call params that are not an object with a tool name are -32602
        tool, cwd = params.get("tool"), params.get("cwd", "")
        if not isinstance(tool, str):
            self.error(ident, INVALID_PARAMS, "call needs params.tool (a string)")
            return
        if not isinstance(cwd, str):
            self.error(ident, INVALID_PARAMS, f"params.cwd must be a string, got {json_type(cwd)}")
            return
        with self.state_lock:
            if ident in self.cancels:
                busy = True
            else:
                busy = False
                event = self.cancels[ident] = threading.Event()
        if busy:
            self.error(ident, INVALID_REQUEST, f"id {preview(ident)} is already in use")
            return
        self.submit(ident, self._call, ident, params, event)

    def submit(self, ident: Any, fn: Callable[..., None], *args: Any) -> None:
        refused = threading.Event()

        def work() -> None:
            if not refused.is_set():  # queued by a submit that then failed: already answered
                fn(*args)

        try:
            future = self.pool.submit(work)
        except (RuntimeError, MemoryError) as exc:  # shut down, or no thread could be started
            refused.set()
            with self.state_lock:
                self.cancels.pop(ident, None)
            message = "" if self.stopped else exhausted_message(exc, "the server")
            self.error(ident, INTERNAL, message or "the server is shutting down")
            return
        with self.state_lock:
            self.futures.add(future)
        future.add_done_callback(self._forget)

    def _forget(self, future: Future[None]) -> None:
        with self.state_lock:
            self.futures.discard(future)

    def _extra(self, ident: Any, name: str, method: Callable[[Any, Any], Any], params: Any) -> None:
        try:
            self.send({"id": ident, "result": method(params, self.tools.services)})
        except (TypeError, ValueError, KeyError) as exc:
            detail = exc.args[0] if exc.args and isinstance(exc.args[0], str) else "see stderr"
            log.info("%s rejected its params", name, exc_info=True)
            self.error(ident, INVALID_PARAMS, f"{name}: invalid params ({detail})")
        except Exception:  # the server must answer every request
            log.error("internal error in %s", name, exc_info=True)
            self.error(ident, INTERNAL, f"{name}: internal error (details on the server's stderr)")

    def _release(self, ident: Any, event: threading.Event) -> None:
        """Free ``ident`` for a new call (only if it still names this call)."""
        with self.state_lock:
            if self.cancels.get(ident) is event:
                del self.cancels[ident]

    def _call(self, ident: Any, params: dict[str, Any], cancel: threading.Event) -> None:
        # the id is released before the answer is written: a client may reuse it as soon as it
        # reads the answer
        try:
            result = self.tools.call(
                params["tool"],
                params.get("arguments", {}),
                params.get("cwd", ""),
                params.get("env"),
                cancel,
            )
            self._release(ident, cancel)
            self.send({"id": ident, "result": result})
        except ProtocolFault as exc:
            self._release(ident, cancel)
            self.error(ident, exc.jsonrpc_code, str(exc))
        except Exception as exc:  # the server must answer every request
            self._release(ident, cancel)
            # a served implementation's own protocol fault, recognised as the in-process
            # adapter recognises it: a ``jsonrpc_code``, or a class named UnknownToolError
            code = getattr(exc, "jsonrpc_code", None)
            if type(code) is int or type(exc).__name__ == "UnknownToolError":
                self.error(ident, code if type(code) is int else INVALID_PARAMS, str(exc))
                return
            exhausted = exhausted_message(exc, f"call {preview(params.get('tool'))}")
            if exhausted:
                log.error("%s", exhausted, exc_info=True)
                self.error(ident, INTERNAL, exhausted)
                return
            log.error("internal error in call %s", preview(params.get("tool")), exc_info=True)
            self.error(ident, INTERNAL, "internal error (details on the server's stderr)")
        finally:
            self._release(ident, cancel)

    def stop(self, grace: float = SHUTDOWN_GRACE) -> bool:
        """Cancel every call, let them answer, clean up; True when no call is still running."""
        if self.stopped:
            return True
        self.stopped = True
        with self.state_lock:
            events = list(self.cancels.values())
        for event in events:
            event.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        done = self._wait(grace)
        try:
            self.tools.shutdown()
        except Exception:
            log.error("shutdown failed", exc_info=True)
        return done or self._wait(1.0)

    def _wait(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.state_lock:
                if not self.futures:
                    return True
            time.sleep(0.01)
        with self.state_lock:
            return not self.futures


class _Stop(Exception):
    """A termination signal: leave the read loop and clean up as at end of input."""


def _on_signal(signum: int, frame: Any) -> None:
    raise _Stop(signum)


def serve(
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    tools: Any = None,
    *,
    exit_process: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
    server_class: type[Server] = Server,
    lines: Callable[[BinaryIO, int], Iterator[bytes | TooLong]] = read_lines,
) -> int:
    """Serve ``tools`` (any in-process implementation; the reference by default) on stdio.

    With ``exit_process`` (the ``agenttools serve`` command) SIGTERM and SIGHUP clean up as end
    of input does, errors are logged to stderr, and the process exits even if a call ignores
    its cancel (after cleaning up under it). ``server_class`` and ``lines`` (how the input is
    cut into lines) are the protocol layer's parts a variant swaps (the broken servers of
    ``agenttools selfcheck``).
    """
    if exit_process:
        logging.basicConfig(stream=sys.stderr, format="agenttools serve: %(message)s")
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _on_signal)
    try:  # what servers killed before they could clean up left in the temp directory
        fsport.sweep_dead_owners()
    except Exception:
        log.error("sweeping the leftovers of dead servers failed", exc_info=True)
    source = stdin if stdin is not None else sys.stdin.buffer
    server = server_class(
        tools if tools is not None else ReferenceTools(),
        stdout or sys.stdout.buffer,
        max_line_bytes,
    )
    try:
        for line in lines(source, max_line_bytes):
            if not server.handle_line(line) or server.out_closed:
                break
    except _Stop:
        pass
    finally:
        if exit_process:  # a second signal must not interrupt the cleanup
            for signum in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_IGN)
        finished = server.stop()
    if exit_process:
        if not finished:
            log.error("a call did not end after its cancel; exiting under it")
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(0)
    return 0
