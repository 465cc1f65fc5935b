"""glob and grep declare a settable timeout but never stop the search: the limit is ignored."""

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_agenttools.reference_impl.search_ops import GlobOps, GrepOps
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._limits import RgRunsWith

SUITE_MODULES = ["test_grep_limits", "test_glob_limits"]
CAUGHT_BY = {"GREP-TIME-01", "GLOB-TIME-01"}


class NoTimeout(RgRunsWith):
    BOUNDS: ClassVar[Mapping[str, Any]] = {"timeout": 3600.0}


class Grep(NoTimeout, GrepOps):
    pass


class Glob(NoTimeout, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})
