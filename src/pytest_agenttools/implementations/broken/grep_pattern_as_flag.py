"""grep hands the pattern to rg as a bare argument: `--help` and `--pre=cat` become options."""

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep"]
CAUGHT_BY = {"GREP-FLAG-01"}


class BarePattern(GrepOps):
    @contextmanager
    def pattern_arguments(self, pattern: str) -> Iterator[list[str]]:
        yield [pattern]


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": BarePattern()})
