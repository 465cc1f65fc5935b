"""read shows every cell of a notebook: it declares read.notebook_max_bytes but ignores it."""

from pytest_agenttools.implementations.broken._limits import IgnoresLimits
from pytest_agenttools.implementations.broken._table import Broken

UNBOUNDED = {"read.notebook_max_bytes": 10**12}


def create() -> IgnoresLimits:
    return IgnoresLimits(UNBOUNDED)


BROKEN = Broken(
    caught_by={"READ-NB-02"},
    suite_modules=["test_read_formats"],
    create=create,
)
