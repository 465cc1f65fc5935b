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
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO


@contextlib.contextmanager
def private_stdout() -> Iterator[BinaryIO]:
    """Yield a binary file on the real stdout; fd 1 and ``sys.stdout`` write to stderr meanwhile.

    The duplicate is not inherited by child processes (``os.dup`` makes it non-inheritable), so
    a command a tool runs cannot write onto the protocol either. Restored on exit.
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
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
