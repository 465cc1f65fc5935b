"""The manifest leaves out bash.background, but run_in_background: true still starts a task."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Undeclared(ReferenceTools):
    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["features"] = [f for f in manifest["features"] if f != "bash.background"]
        return manifest


def create() -> ReferenceTools:
    return Undeclared()


BROKEN = Broken(
    caught_by={"BASH-BG-07"},
    suite_modules=["test_bash"],
    create=create,
)
