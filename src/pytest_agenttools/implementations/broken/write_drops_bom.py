"""write forgets an existing UTF-8 BOM (the most reported write bug)."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import textcodec
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from pytest_agenttools.implementations.reference.write import WriteOps


class ForgetsBom(WriteOps):
    """Looks at the old file without its BOM, so the rewrite is plain UTF-8, and strips a
    leading U+FEFF from the new content of an existing file, as BOM-agnostic tools do."""

    def read_head(self, target: str, size: int) -> bytes:
        head = super().read_head(target, size)
        return head.removeprefix(textcodec.UTF8_BOM)

    def store_text(self, content: str, old_head: bytes | None) -> str:
        return content if old_head is None else content.removeprefix("\ufeff")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"write": ForgetsBom()})


BROKEN = Broken(
    caught_by={"WRITE-BOM-01"},
    suite_modules=["test_write"],
    create=create,
)
