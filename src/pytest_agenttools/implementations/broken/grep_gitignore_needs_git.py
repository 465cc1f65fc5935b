"""grep and glob declare .gitignore outside a git repository but honour it only inside one
(ripgrep's default without ``--no-require-git``)."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NeedsGit(SearchOps):
    def base_flags(self) -> list[str]:
        return [flag for flag in super().base_flags() if flag != "--no-require-git"]


class Grep(NeedsGit, GrepOps):
    pass


class Glob(NeedsGit, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-IGN-03", "GLOB-IGN-04"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
