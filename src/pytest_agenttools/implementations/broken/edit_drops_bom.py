"""edit reads the file with its UTF-8 BOM stripped and writes the text back without it."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, textcodec
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class BomBlindOps(edit.EditOps):
    def read_bytes(self, target: str) -> bytes:
        return super().read_bytes(target).removeprefix(textcodec.UTF8_BOM)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"edit": BomBlindOps()})


BROKEN = Broken(
    caught_by={"EDIT-BOM-01", "EDIT-RA-03"},
    suite_modules=["test_edit"],
    create=create,
)
