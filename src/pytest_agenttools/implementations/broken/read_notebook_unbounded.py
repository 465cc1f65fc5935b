"""read shows every cell of a notebook: it declares read.notebook_max_bytes but ignores it."""

from pytest_agenttools.implementations.broken._limits import IgnoresLimits

SUITE_MODULES = ["test_read_formats"]
CAUGHT_BY = {"READ-NB-02"}
UNBOUNDED = {"read.notebook_max_bytes": 10**12}


def create() -> IgnoresLimits:
    return IgnoresLimits(UNBOUNDED)
