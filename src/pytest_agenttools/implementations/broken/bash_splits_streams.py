"""bash collects standard output and standard error apart and shows them one after the other:
the order in which the command wrote them is lost."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.processes import CommandProcess
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


class Split(BashOps):
    def spawn(
        self, command: str, cwd: str, env: Mapping[str, str], *, keepalive: bool, grace: float
    ) -> CommandProcess:
        split = SPLIT.format(command=command)
        return super().spawn(split, cwd, env, keepalive=keepalive, grace=grace)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": Split()})


BROKEN = Broken(
    caught_by={"BASH-PROC-04"},
    suite_modules=["test_bash"],
    create=create,
)
