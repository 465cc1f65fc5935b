"""bash's observation of a command killed by a signal leaves the signal out: it says only that
the command failed, so nothing tells a kill from a crash."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._present import observation

SUITE_MODULES = ["test_bash"]
CAUGHT_BY = {"BASH-EXIT-06"}


class NoSignal(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        seen = observation(result)
        if tool == "bash" and seen.get("signal") and not seen.get("timed_out"):
            seen.pop("signal")
        return result


def create() -> NoSignal:
    return NoSignal()
