"""read shows the whole file: it declares the usual caps but enforces none."""

from pytest_agenttools.implementations.broken._limits import IgnoresLimits
from pytest_agenttools.implementations.broken._table import Broken

UNBOUNDED = {"read.max_lines": 10**9, "read.max_bytes": 10**12, "read.max_line_chars": 10**9}


def create() -> IgnoresLimits:
    return IgnoresLimits(UNBOUNDED)


BROKEN = Broken(
    caught_by={"READ-CAP-01", "READ-CAP-02", "READ-CAP-03", "READ-STREAM-01"},
    suite_modules=["test_read_paging"],
    create=create,
)
