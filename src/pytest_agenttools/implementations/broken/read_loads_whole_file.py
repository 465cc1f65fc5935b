"""read loads the whole file into memory and then pages it (bounded output, unbounded memory)."""

import io
from typing import BinaryIO

from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_read_paging"]
CAUGHT_BY = {"READ-STREAM-02"}


class LoadsAll(ReadOps):
    def open(self, path: str) -> BinaryIO:
        with super().open(path) as stream:
            return io.BytesIO(stream.read())


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": LoadsAll()})
