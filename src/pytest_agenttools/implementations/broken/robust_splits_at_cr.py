"""Ends a protocol line at a lone CR as well as at LF, as a line reader built for text does
(Node's ``readline`` does so): a line holding a CR is answered twice, once for each piece, and
every later answer comes one request late."""

from collections.abc import Iterator
from typing import BinaryIO

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import TooLong, read_lines

__all__ = ["create"]


def lines_at_cr(stream: BinaryIO, limit: int) -> Iterator[bytes | TooLong]:
    for line in read_lines(stream, limit):
        if isinstance(line, TooLong):
            yield line
            continue
        # CRLF stays one line end; any other CR ends a line too
        yield from line.replace(b"\r\n", b"\n").split(b"\r")


BROKEN = Broken(
    caught_by={"ROBUST-LINE-01"},
    suite_modules=["test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(lines=lines_at_cr)
