"""Touches the path before checking it, and lets the runtime's exception text reach the result.

The dispatch resolves every path-like argument first (``os.path.realpath``), so an integer path
raises ``TypeError`` and a NUL raises ``ValueError: embedded null byte``; the error result then
says ``Internal error in read: TypeError: ...``, as the reference did before its argument layer.
"""

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import ToolError, error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

PATHS = ("path", "file_path")


class LeaksExceptions(ReferenceTools):
    """A step before the reference's call whose runtime exception text becomes the result
    (``prepare``; other broken implementations swap the step and keep the leak)."""

    def prepare(self, arguments: Any, cwd: str) -> Any:
        """The arguments the call goes on with; here every path resolved first."""
        for name in PATHS:
            if isinstance(arguments, dict) and name in arguments:
                os.path.realpath(os.path.join(cwd, arguments[name]))
        return arguments

    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        try:
            arguments = self.prepare(arguments, cwd)
        except ToolError as exc:
            return error_result(exc.code, exc.message)
        except Exception as exc:
            return error_result(
                "internal", f"Internal error in {tool}: {type(exc).__name__}: {exc}"
            )
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> LeaksExceptions:
    return LeaksExceptions()


BROKEN = Broken(
    caught_by={"ROBUST-ARGS-01", "ROBUST-ARGS-02", "ROBUST-FUZZ-01"},
    suite_modules=["test_robust"],
    create=create,
)
