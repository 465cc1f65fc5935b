"""grep and glob put the sensitive exclusions BEFORE the user's globs, as plain ``--glob`` rules.

ripgrep lets the last matching glob win, so ``glob="**/.env"`` re-includes every ``.env``: the
ordering bug the seed article warns about.
"""

from collections.abc import Sequence
from typing import Any

from pytest_agenttools.reference_impl import search_filters
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep", "test_glob"]
CAUGHT_BY = {"GREP-SENS-02", "GLOB-SENS-01"}


def sensitive_first(
    user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
) -> list[str]:
    ordered = search_filters.sensitive_globs()
    if default_dirs:
        ordered += search_filters.default_dir_globs()
    if bulky:
        ordered += search_filters.bulky_globs()
    return [f"--glob={glob}" for glob in [*ordered, *user_globs]]


def create() -> Any:
    search_filters.glob_arguments = sensitive_first
    search_filters.path_filter = lambda user_globs: None
    return ReferenceTools()
