"""read shows the whole file: it declares the usual caps but enforces none."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_read_paging"]
CAUGHT_BY = {"READ-CAP-01", "READ-CAP-02", "READ-CAP-03", "READ-STREAM-01"}
UNBOUNDED = {"read.max_lines": 10**9, "read.max_bytes": 10**12, "read.max_line_chars": 10**9}


class NoCaps(ReferenceTools):
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


def create() -> NoCaps:
    return NoCaps()
