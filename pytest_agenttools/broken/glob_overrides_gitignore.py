"""grep and glob pass the user's patterns to rg as ``--glob`` rules (before the exclusions).

The exclusions still win, but a matching ``--glob`` outranks ``.gitignore`` in ripgrep, so
``*.log`` or ``*.py`` list and search files the project ignores.
"""

from collections.abc import Sequence
from typing import Any

from pytest_agenttools.reference_impl import search_filters
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep", "test_glob"]
CAUGHT_BY = {"GREP-IGN-01", "GLOB-IGN-01"}


def as_overrides(
    user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
) -> list[str]:
    ordered = list(user_globs)
    if default_dirs:
        ordered += search_filters.default_dir_globs()
    if bulky:
        ordered += search_filters.bulky_globs()
    ordered += search_filters.sensitive_globs()
    return [f"--glob={glob}" for glob in ordered]


def create() -> Any:
    search_filters.glob_arguments = as_overrides
    return ReferenceTools()
