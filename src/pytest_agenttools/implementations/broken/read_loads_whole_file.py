"""read loads the whole file into memory and then pages it (bounded output, unbounded memory)."""

import io
from typing import BinaryIO

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class LoadsAll(ReadOps):
    def open(self, path: str) -> BinaryIO:
        with super().open(path) as stream:
            return io.BytesIO(stream.read())


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": LoadsAll()})


BROKEN = Broken(
    caught_by={"READ-STREAM-02"},
    suite_modules=["test_read_paging"],
    create=create,
)
