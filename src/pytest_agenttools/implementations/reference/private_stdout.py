"""A private stdout for a protocol: what tools print goes to stderr, never onto the wire.

``agenttools serve`` speaks JSON-RPC on stdout and ``agenttools call`` prints one JSON document
there; an in-process tool library that logs with ``print`` (or a C extension writing to fd 1)
would interleave its lines with theirs and break the reader. ``private_stdout()`` keeps a
duplicate of fd 1 for the protocol and points fd 1 and ``sys.stdout`` at stderr while the block
runs, so only the protocol writes to the real stdout. (``agenttools serve --mcp`` needs none:
the MCP SDK's ``stdio_server`` diverts fd 1 the same way while it serves.)
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, cast


@contextlib.contextmanager
def private_stdout() -> Iterator[BinaryIO]:
    """Yield a binary file on the real stdout; fd 1 and ``sys.stdout`` write to stderr meanwhile.

    The duplicate is not inherited by child processes (``os.dup`` makes it non-inheritable), so
    a command a tool runs cannot write onto the protocol either. Restored on exit.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    if not _on_fd_1(sys.stdout):
        # stdout was replaced in this process (a test's capture, a caller's StringIO): the
        # answer goes there, and what the tools print goes to stderr
        previous = sys.stdout
        sys.stdout = sys.stderr
        try:
            yield cast(BinaryIO, _BinarySink(previous))
        finally:
            sys.stdout = previous
        return
    try:
        saved = os.dup(1)
    except OSError:  # no fd 1 at all: nothing to protect, and nothing to write to either
        with open(os.devnull, "wb") as sink:
            yield sink
        return
    protocol = os.fdopen(saved, "wb")
    previous = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield protocol
    finally:
        with contextlib.suppress(OSError, ValueError):
            protocol.flush()
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os.dup2(saved, 1)
        sys.stdout = previous
        with contextlib.suppress(OSError):
            protocol.close()


def _on_fd_1(stream: Any) -> bool:
    try:
        return bool(stream.fileno() == 1)
    except (OSError, ValueError, AttributeError):
        return False


class _BinarySink(io.RawIOBase):
    """Bytes written to a text stream (UTF-8), for a stdout that is not fd 1."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self.stream = stream

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self.stream is not None:
            self.stream.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self.stream.flush()
