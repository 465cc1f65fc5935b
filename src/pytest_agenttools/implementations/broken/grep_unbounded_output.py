"""grep and glob declare an output cap but read all of rg's output into memory, however big."""

from collections.abc import Mapping
from typing import Any, ClassVar

from pytest_agenttools.implementations.broken._limits import RgRunsWith
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Unbounded(RgRunsWith):
    BOUNDS: ClassVar[Mapping[str, Any]] = {"max_bytes": 1 << 40}


class Grep(Unbounded, GrepOps):
    pass


class Glob(Unbounded, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-OUT-01", "GLOB-OUT-01"},
    suite_modules=["test_grep_limits", "test_glob_limits"],
    create=create,
)
