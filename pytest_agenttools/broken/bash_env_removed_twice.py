"""bash reports each removed variable name twice (once per layer that removed it), so the list
of what a command lost does not say what was removed."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

from ._present import observation

SUITE_MODULES = ["test_bash_env"]
CAUGHT_BY = {"BASH-ENV-06"}


class Twice(ReferenceTools):
    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        seen = observation(result)
        if tool in ("bash", "task_output") and seen.get("env_removed"):
            seen["env_removed"] = [*seen["env_removed"], *seen["env_removed"]]
        return result


def create() -> Twice:
    return Twice()
