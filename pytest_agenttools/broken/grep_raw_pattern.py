"""grep and glob hand patterns to the system unchecked and on the command line: a NUL, an
unpaired surrogate or a 128 KiB pattern comes back as an exception's text."""

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_agenttools.reference_impl.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep_limits", "test_glob_limits"]
CAUGHT_BY = {"GREP-INPUT-01", "GLOB-INPUT-01"}


class Unchecked(SearchOps):
    def check_text(self, value: str, tool: str, name: str, *, max_chars: int, what: str) -> str:
        return value


class Grep(Unchecked, GrepOps):
    @contextmanager
    def pattern_arguments(self, pattern: str) -> Iterator[list[str]]:
        yield [f"--regexp={pattern}"]


class Glob(Unchecked, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})
