"""grep walks every line number within ``context`` of a match: ``context = 10^12`` loops for
hours (it stops only when the call is cancelled)."""

import threading
from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class WalksTheRange(GrepOps):
    def window(
        self,
        numbers: Sequence[int],
        number: int,
        context: int,
        cancel: threading.Event | None = None,
    ) -> Sequence[int]:
        present = set(numbers)
        found = []
        for index, candidate in enumerate(range(max(1, number - context), number + context + 1)):
            if index % 1_000_000 == 0 and cancel is not None and cancel.is_set():
                raise ToolError("aborted", "grep was cancelled.")
            if candidate in present:
                found.append(candidate)
        return found


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": WalksTheRange()})


BROKEN = Broken(
    caught_by={"GREP-INPUT-01"},
    suite_modules=["test_grep_limits"],
    # the calls it fails wait for the kit's deadline; a short one keeps the self-check quick
    pytest_args=["--agenttools-call-timeout=3"],
    create=create,
)
