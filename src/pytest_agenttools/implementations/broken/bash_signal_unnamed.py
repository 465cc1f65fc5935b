"""bash's observation of a command killed by a signal leaves the signal out: it says only that
the command failed, so nothing tells a kill from a crash."""

from typing import Any

from pytest_agenttools.implementations.broken._present import Reshaped
from pytest_agenttools.implementations.broken._table import Broken


class NoSignal(Reshaped):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        if tool == "bash" and seen.get("signal") and not seen.get("timed_out"):
            seen.pop("signal")


def create() -> NoSignal:
    return NoSignal()


BROKEN = Broken(
    caught_by={"BASH-EXIT-06"},
    suite_modules=["test_bash"],
    create=create,
)
