"""bash reads standard output and standard error through two pipes and shows each line as it
arrives: the interleaving is kept only when the reader happens to read after every write (on
a busy machine it often does), and lost when the command writes faster than that. pi's bash
works so. Its defect must fail every run, not only the runs in which the order came out wrong."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken._wrapped_bash import wrapped_bash
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: the command's standard error is a second pipe, copied into the output by its own reader
#: (`cat`) in whatever order the two pipes are read; the copy is waited for before the end
APART = """( {command}
) 2> >(cat)
__status=$?
wait $! 2>/dev/null
exit $__status"""


def create() -> ReferenceTools:
    return wrapped_bash(APART)


BROKEN = Broken(
    caught_by={"BASH-PROC-04"},
    suite_modules=["test_bash"],
    create=create,
)
