"""write keeps a CRLF file's style by turning every LF into CRLF: CRLF content gets CR CR LF."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps


class DoublesCr(WriteOps):
    def store_text(self, content: str, old_head: bytes | None) -> str:
        if old_head is not None and b"\r\n" in old_head:
            return content.replace("\n", "\r\n")
        return content


def create() -> ReferenceTools:
    return ReferenceTools(ops={"write": DoublesCr()})


BROKEN = Broken(
    caught_by={"WRITE-EOL-02"},
    suite_modules=["test_write"],
    create=create,
)
