"""read splits lines on CR as well as LF (Python's universal newlines), renumbering the file."""

from collections.abc import Iterator
from typing import Any, BinaryIO

from pytest_agenttools.reference_impl import read, textcodec
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_read"]
CAUGHT_BY = {"READ-EOL-01"}


def split_everywhere(stream: BinaryIO, encoding: Any, max_chars: int) -> Iterator[tuple[str, bool]]:
    text = textcodec.decode(stream.read(), encoding)
    for line in text.splitlines():
        yield line[:max_chars], len(line) > max_chars


class UniversalNewlines(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        original = read.textcodec.iter_lines
        read.textcodec.iter_lines = split_everywhere
        try:
            return super().call(tool, arguments, cwd, env, cancel)
        finally:
            read.textcodec.iter_lines = original


def create() -> UniversalNewlines:
    return UniversalNewlines()
