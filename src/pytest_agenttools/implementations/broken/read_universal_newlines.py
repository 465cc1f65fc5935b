"""read splits lines on CR as well as LF (Python's universal newlines), renumbering the file."""

from collections.abc import Iterator
from typing import BinaryIO

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import textcodec
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class SplitsEverywhere(ReadOps):
    def lines(
        self, stream: BinaryIO, encoding: textcodec.Encoding, max_chars: int
    ) -> Iterator[tuple[str, bool]]:
        text = textcodec.decode(stream.read(), encoding)
        for line in text.splitlines():
            yield line[:max_chars], len(line) > max_chars


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": SplitsEverywhere()})


BROKEN = Broken(
    caught_by={"READ-EOL-01"},
    suite_modules=["test_read"],
    create=create,
)
