"""The manifest leaves out read.image_resize, but a large image is still scaled down: the model
is promised the file's exact bytes and gets other ones."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Undeclared(ReferenceTools):
    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["features"] = [f for f in manifest["features"] if f != "read.image_resize"]
        return manifest


def create() -> ReferenceTools:
    return Undeclared()


BROKEN = Broken(
    caught_by={"READ-IMG-03"},
    suite_modules=["test_read_formats"],
    create=create,
)
