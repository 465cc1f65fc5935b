"""glob and grep declare a settable timeout but never stop the search: the limit is ignored."""

import threading
from collections.abc import Mapping, Sequence

from pytest_agenttools.reference_impl import ripgrep
from pytest_agenttools.reference_impl.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep_limits", "test_glob_limits"]
CAUGHT_BY = {"GREP-TIME-01", "GLOB-TIME-01"}


class NoTimeout(SearchOps):
    def run(
        self,
        argv: Sequence[str],
        cwd: str,
        *,
        timeout: float,
        max_bytes: int,
        cancel: threading.Event | None,
        env: Mapping[str, str] | None,
    ) -> ripgrep.RgRun:
        return super().run(argv, cwd, timeout=3600.0, max_bytes=max_bytes, cancel=cancel, env=env)


class Grep(NoTimeout, GrepOps):
    pass


class Glob(NoTimeout, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})
