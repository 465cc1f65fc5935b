"""edit normalises CRLF to LF for matching and never restores it."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class FlatteningOps(edit.EditOps):
    def read_bytes(self, target: str) -> bytes:
        return super().read_bytes(target).replace(b"\r\n", b"\n")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"edit": FlatteningOps()})


BROKEN = Broken(
    caught_by={"EDIT-EOL-01", "EDIT-EOL-02", "EDIT-RA-03"},
    suite_modules=["test_edit"],
    create=create,
)
