"""bash reports a command that exited with a non-zero code as a success (the code is in the
text and the observation, but the result is not an error)."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._present import observation

SUITE_MODULES = ["test_bash"]
CAUGHT_BY = {"BASH-EXIT-05"}


class NonzeroOk(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        code = observation(result).get("exit_code")
        if tool == "bash" and isinstance(code, int) and code != 0:
            result["isError"] = False
        return result


def create() -> NonzeroOk:
    return NonzeroOk()
