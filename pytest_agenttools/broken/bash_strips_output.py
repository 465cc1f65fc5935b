"""bash trims the output of a successful command (the final newline and trailing blanks go):
what the model sees is not what the command printed."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._present import observation

SUITE_MODULES = ["test_bash"]
CAUGHT_BY = {"BASH-EXIT-04"}


class Stripped(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        seen = observation(result)
        if tool == "bash" and seen.get("exit_code") == 0 and isinstance(seen.get("output"), str):
            seen["output"] = seen["output"].rstrip()
        return result


def create() -> Stripped:
    return Stripped()
