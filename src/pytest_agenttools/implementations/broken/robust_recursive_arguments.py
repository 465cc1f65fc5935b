"""Copies every argument value recursively before the call (as a sanitiser would), and lets
the runtime's exception text reach the result.

The walk takes a few frames per level of nesting (a visitor, as a schema validator or a
sanitiser would), so an array nested 300 deep exhausts the interpreter's stack: the result says
``Internal error in read: RecursionError: maximum recursion depth exceeded``, the text of a
crash (ROBUST-ARGS-05). Shallow arguments, all that the rest of the suite sends, are untouched.
"""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.robust_leaks_exceptions import LeaksExceptions


def visit(value: Any) -> Any:
    return _dispatch(value)


def _dispatch(value: Any) -> Any:
    if isinstance(value, list):
        return _sequence(value)
    if isinstance(value, dict):
        return {key: visit(item) for key, item in value.items()}
    return value


def _sequence(values: list[Any]) -> list[Any]:
    return [_element(item) for item in values]


def _element(item: Any) -> Any:
    return visit(item)


class RecursiveArguments(LeaksExceptions):
    def prepare(self, arguments: Any, cwd: str) -> Any:
        return visit(arguments) if isinstance(arguments, dict) else arguments


def create() -> RecursiveArguments:
    return RecursiveArguments()


BROKEN = Broken(
    caught_by={"ROBUST-ARGS-05"},
    suite_modules=["test_robust"],
    create=create,
)
