"""grep and glob never check the search root itself: ``path=".ssh"`` searches inside it.

The exclusion globs match below the root, so a root that is itself sensitive slips through.
"""

from collections.abc import Mapping
from dataclasses import replace

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import search_root
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class RootUnchecked(SearchOps):
    def resolve_root(
        self, raw: object | None, cwd: str, env: Mapping[str, str] | None, tool: str
    ) -> search_root.Root:
        return replace(super().resolve_root(raw, cwd, env, tool), sensitive=None)


class Grep(RootUnchecked, GrepOps):
    pass


class Glob(RootUnchecked, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-SENS-04", "GLOB-SENS-03"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
