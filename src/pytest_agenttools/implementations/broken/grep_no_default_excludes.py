"""grep and glob declare the default exclusions but search node_modules, dist, .venv and the
rest of the spec's excluded directories like any other."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoExcludes(SearchOps):
    def inside_default_excluded(self, root: str, cwd: str) -> bool:
        return True  # as if every root lay inside an excluded directory: nothing is skipped


class Grep(NoExcludes, GrepOps):
    pass


class Glob(NoExcludes, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-EXCL-01", "GLOB-EXCL-01"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
