"""read declares the `pipe` line-number style (``    12 | text``) but shows its arrow lines."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class DeclaresPipe(ReferenceTools):
    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["output"] = {**manifest["output"], "line_numbers": "pipe"}
        return manifest


BROKEN = Broken(
    caught_by={"READ-LN-01"},
    suite_modules=["test_read"],
    create=DeclaresPipe,
)
