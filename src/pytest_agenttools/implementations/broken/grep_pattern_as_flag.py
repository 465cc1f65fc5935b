"""grep hands the pattern to rg as a bare argument: `--help` and `--pre=cat` become options."""

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class BarePattern(GrepOps):
    @contextmanager
    def pattern_arguments(self, pattern: str) -> Iterator[list[str]]:
        yield [pattern]


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": BarePattern()})


BROKEN = Broken(
    caught_by={"GREP-FLAG-01"},
    suite_modules=["test_grep"],
    create=create,
)
