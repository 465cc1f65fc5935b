"""Takes every numeric argument through a float first, and lets the runtime's complaint reach
the result: an integer beyond the float range (10^400) gets ``Internal error in read:
OverflowError: int too large to convert to float`` instead of an error that names the argument."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NumberOverflow(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        if isinstance(arguments, dict):
            for value in arguments.values():
                if isinstance(value, int) and not isinstance(value, bool):
                    try:
                        float(value)
                    except OverflowError as exc:
                        text = f"Internal error in {tool}: {type(exc).__name__}: {exc}"
                        return error_result("internal", text)
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> NumberOverflow:
    return NumberOverflow()


BROKEN = Broken(
    caught_by={"ROBUST-ARGS-03"},
    suite_modules=["test_robust"],
    create=create,
)
