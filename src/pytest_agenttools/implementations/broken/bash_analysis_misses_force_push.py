"""bash/analyze has no force-push check: ``git push --force origin main`` is a static command
without risk, ``reusable``, and ``Bash(git push:*)`` covers it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import command_risk, command_rules
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

CHECKS = tuple(c for c in command_risk.CALL_CHECKS if c is not command_risk.force_push)


def _analyze(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    return command_rules.analyze(params["command"], CHECKS)


class NoForcePush(ReferenceTools):
    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        return _analyze if name == "bash/analyze" else super().method(name)


BROKEN = Broken(
    caught_by={"BASH-AN-05", "BASH-AN-06"}, suite_modules=["test_bash_rules"], create=NoForcePush
)
