"""edit never retries without read-style line-number prefixes, though its read shows them."""

import functools

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def create() -> ReferenceTools:
    steps = edit.Steps(retry_line_numbers=False)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})


BROKEN = Broken(
    caught_by={"EDIT-LN-02"},
    suite_modules=["test_edit"],
    create=create,
)
