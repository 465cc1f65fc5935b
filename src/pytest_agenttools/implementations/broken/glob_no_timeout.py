"""glob and grep declare a settable timeout but never stop the search: the limit is ignored."""

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_agenttools.implementations.broken._limits import RgRunsWith
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoTimeout(RgRunsWith):
    BOUNDS: ClassVar[Mapping[str, Any]] = {"timeout": 3600.0}


class Grep(NoTimeout, GrepOps):
    pass


class Glob(NoTimeout, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-TIME-01", "GLOB-TIME-01"},
    suite_modules=["test_grep_limits", "test_glob_limits"],
    create=create,
)
