"""bash collects standard output and standard error apart and shows them one after the other:
the order in which the command wrote them is lost."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken._wrapped_bash import wrapped_bash
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: the command (in a subshell, so that its own `exit` still reaches the end) with its standard
#: error held in a file until it ends, then appended
SPLIT = """__err=$(mktemp)
( {command}
) 2>"$__err"
__status=$?
cat "$__err" >&2
rm -f "$__err"
exit $__status"""


def create() -> ReferenceTools:
    return wrapped_bash(SPLIT)


BROKEN = Broken(
    caught_by={"BASH-PROC-04"},
    suite_modules=["test_bash"],
    create=create,
)
