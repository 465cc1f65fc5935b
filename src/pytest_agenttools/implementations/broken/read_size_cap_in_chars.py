"""read counts its text-size cap in characters while its manifest declares bytes, so a page
of non-ASCII text is up to four times larger than declared."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CharsAsBytes(ReferenceTools):
    def __init__(self) -> None:
        super().__init__(units={"read.max_bytes": "chars"})

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"]["read.max_bytes"] = self.limits["read.max_bytes"]
        return manifest


def create() -> CharsAsBytes:
    return CharsAsBytes()


BROKEN = Broken(
    caught_by={"READ-CAP-02"},
    suite_modules=["test_read_paging"],
    create=create,
)
