"""Stats every path argument before the tool checks it, and shows the runtime's error as it
is: a path of a mebibyte gets ``OSError: [Errno 36] File name too long: '...'`` (and its
megabyte of name) instead of an error that names the argument and its limit."""

import os
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.results import error_result
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

PATHS = ("path", "file_path")


class LongPathLeaks(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        for name in PATHS:
            value = arguments.get(name) if isinstance(arguments, dict) else None
            if isinstance(value, str) and "\0" not in value:
                try:
                    os.stat(os.path.join(cwd, value))
                except FileNotFoundError:
                    pass  # a new file: the tool decides
                except OSError as exc:
                    return error_result("io_error", f"{type(exc).__name__}: {exc}"[:2000])
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> LongPathLeaks:
    return LongPathLeaks()


BROKEN = Broken(
    caught_by={"ROBUST-ARGS-04"},
    suite_modules=["test_robust"],
    create=create,
)
