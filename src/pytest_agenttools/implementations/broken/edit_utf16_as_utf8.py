"""edit decodes a UTF-16LE file and writes it back as UTF-8 without its BOM (pi's edit does)."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit, textcodec
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class TranscodingOps(edit.EditOps):
    def read_bytes(self, target: str) -> bytes:
        data = super().read_bytes(target)
        if data.startswith(textcodec.UTF16LE_BOM):
            return data[2:].decode("utf-16-le").encode("utf-8")
        return data


def create() -> ReferenceTools:
    return ReferenceTools(ops={"edit": TranscodingOps()})


BROKEN = Broken(
    caught_by={"EDIT-ENC-03", "EDIT-ENC-01"},
    suite_modules=["test_edit"],
    create=create,
)
