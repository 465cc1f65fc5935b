"""grep and glob put the sensitive exclusions BEFORE the user's globs, as plain ``--glob`` rules.

ripgrep lets the last matching glob win, so ``glob="**/.env"`` re-includes every ``.env``: the
ordering bug the seed article warns about.
"""

from collections.abc import Callable, Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import search_filters
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class SensitiveFirst(SearchOps):
    def selection(
        self, user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
    ) -> list[str]:
        ordered = search_filters.sensitive_globs()
        if default_dirs:
            ordered += search_filters.default_dir_globs()
        if bulky:
            ordered += search_filters.bulky_globs()
        return [f"--glob={glob}" for glob in [*ordered, *user_globs]]

    def path_filter(self, user_globs: Sequence[str]) -> Callable[[bytes], bool] | None:
        return None


class Grep(SensitiveFirst, GrepOps):
    pass


class Glob(SensitiveFirst, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-SENS-02", "GLOB-SENS-01"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
