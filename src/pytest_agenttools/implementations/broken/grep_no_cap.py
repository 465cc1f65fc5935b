"""grep and glob declare the usual result caps but return every result in one page."""

from pytest_agenttools.implementations.broken._limits import IgnoresLimits
from pytest_agenttools.implementations.broken._table import Broken

UNBOUNDED = {"grep.max_results": 10**9, "glob.max_results": 10**9}


def create() -> IgnoresLimits:
    return IgnoresLimits(UNBOUNDED)


BROKEN = Broken(
    caught_by={"GREP-CAP-01", "GLOB-CAP-01"},
    suite_modules=["test_grep_paging", "test_glob_limits"],
    create=create,
)
