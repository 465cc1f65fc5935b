"""bash has no timeout cap and hands the timeout to a timer that holds at most 2^31 - 1 ms (as
JavaScript's ``setTimeout`` does, in pi): a longer one overflows and fires at once, so the
command is killed a moment after it starts and reported as timed out. Whether the command got
as far as its first step before the kill is a race; the defect must fail every run anyway."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: the longest delay such a timer holds, in seconds
TIMER_MAX_S = (2**31 - 1) / 1000
#: what an overflowed timer waits instead
AT_ONCE_S = 0.001


def overflowing(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    asked = arguments.get("timeout") if isinstance(arguments, dict) else None
    if isinstance(asked, int | float) and not isinstance(asked, bool) and asked > TIMER_MAX_S:
        # killed before its first step: the race the defect leaves, lost every time here
        arguments = {**arguments, "command": "sleep 60", "timeout": AT_ONCE_S}
    return bash.run(arguments, ctx)


def create() -> ReferenceTools:
    # no cap: every timeout is taken as asked (bash.max_timeout_s = 0 declares that)
    return ReferenceTools({"bash.max_timeout_s": 0}, runs={"bash": overflowing})


BROKEN = Broken(
    caught_by={"BASH-TIMEOUT-03", "BASH-TIMEOUT-04"},
    suite_modules=["test_bash"],
    create=create,
)
