"""grep and glob declare the usual result caps but return every result in one page."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep_paging", "test_glob_limits"]
CAUGHT_BY = {"GREP-CAP-01", "GLOB-CAP-01"}
CAPS = ("grep.max_results", "glob.max_results")


class NoResultCap(ReferenceTools):
    def __init__(self) -> None:
        super().__init__()
        self.declared = self.limits.as_dict()
        self.limits.apply(dict.fromkeys(CAPS, 10**9))

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["limits"] = dict(self.declared)
        manifest["settings"] = [s for s in manifest["settings"] if s not in CAPS]
        return manifest

    def configure(self, settings: Any) -> dict[str, Any]:
        return super().configure({k: v for k, v in settings.items() if k not in CAPS})


def create() -> NoResultCap:
    return NoResultCap()
