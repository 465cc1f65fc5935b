"""Keeps running when its stdin closes: the read loop ends, but the process waits for calls
that can never come, and a background command it started runs on; only a signal ends it."""

import threading
from collections.abc import Iterator
from typing import BinaryIO

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import TooLong, read_lines

__all__ = ["create"]


def lines_then_wait(stream: BinaryIO, limit: int) -> Iterator[bytes | TooLong]:
    yield from read_lines(stream, limit)
    threading.Event().wait()  # end of input: wait for nothing, until a signal


BROKEN = Broken(
    caught_by={"ROBUST-EOF-01"},
    suite_modules=["test_robust_protocol"],
    served=True,
    # ROBUST-EOF-01 waits 15 s for the exit that never comes
    waits_s=15,
    create=create,
)


if __name__ == "__main__":
    serve_broken(lines=lines_then_wait)
