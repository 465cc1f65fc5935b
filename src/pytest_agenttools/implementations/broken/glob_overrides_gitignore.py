"""grep and glob pass the user's patterns to rg as ``--glob`` rules (before the exclusions).

The exclusions still win, but a matching ``--glob`` outranks ``.gitignore`` in ripgrep, so
``*.log`` or ``*.py`` list and search files the project ignores.
"""

from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import search_filters
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class AsOverrides(SearchOps):
    def selection(
        self, user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
    ) -> list[str]:
        ordered = list(user_globs)
        if default_dirs:
            ordered += search_filters.default_dir_globs()
        if bulky:
            ordered += search_filters.bulky_globs()
        ordered += search_filters.sensitive_globs()
        return [f"--glob={glob}" for glob in ordered]


class Grep(AsOverrides, GrepOps):
    pass


class Glob(AsOverrides, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-IGN-02", "GREP-IGN-03", "GLOB-IGN-03", "GLOB-IGN-04"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
