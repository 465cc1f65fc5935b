"""grep and glob declare an output cap but read all of rg's output into memory, however big."""

import threading
from collections.abc import Mapping, Sequence

from pytest_agenttools.reference_impl import ripgrep
from pytest_agenttools.reference_impl.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep_limits", "test_glob_limits"]
CAUGHT_BY = {"GREP-OUT-01", "GLOB-OUT-01"}


class Unbounded(SearchOps):
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
        return super().run(argv, cwd, timeout=timeout, max_bytes=1 << 40, cancel=cancel, env=env)


class Grep(Unbounded, GrepOps):
    pass


class Glob(Unbounded, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})
