"""edit never retries without read-style line-number prefixes, though its read shows them."""

import functools

from pytest_agenttools.implementations.reference import edit
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_edit"]
CAUGHT_BY = {"EDIT-LN-02"}


def create() -> ReferenceTools:
    steps = edit.Steps(retry_line_numbers=False)
    return ReferenceTools(runs={"edit": functools.partial(edit.run, steps=steps)})
