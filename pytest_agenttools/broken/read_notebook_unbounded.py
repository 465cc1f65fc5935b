"""read shows every cell of a notebook: it declares read.notebook_max_bytes but ignores it."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_read_formats"]
CAUGHT_BY = {"READ-NB-02"}
UNBOUNDED = {"read.notebook_max_bytes": 10**12}


class UnboundedNotebook(ReferenceTools):
    def __init__(self) -> None:
        super().__init__()
        self.declared = self.limits.declared()
        self.limits.apply(UNBOUNDED)

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"] = dict(self.declared)
        manifest["settings"] = [s for s in manifest["settings"] if s not in UNBOUNDED]
        return manifest

    def configure(self, settings: Any) -> dict[str, Any]:
        return super().configure({k: v for k, v in settings.items() if k not in UNBOUNDED})


def create() -> UnboundedNotebook:
    return UnboundedNotebook()
