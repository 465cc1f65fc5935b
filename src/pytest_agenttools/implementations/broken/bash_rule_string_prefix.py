"""bash/match_rule compares a prefix rule as a string: ``command.startswith(prefix)``. So
``Bash(go test:*)`` covers ``go test ./... && rm -rf tmp`` and ``npm run test:unit``, and misses
``npm  run 'test'``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import command_rules
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def _match(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    rule, command = params["rule"], params["command"]
    kind, value = command_rules.parse_rule(rule)
    if kind == "exact":
        return command_rules.match_rule(rule, command)
    matches = command.startswith(value)
    return {"matches": matches, "kind": kind, "reason": f"the command starts with {value}"}


class StringPrefix(ReferenceTools):
    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        return _match if name == "bash/match_rule" else super().method(name)


BROKEN = Broken(caught_by={"BASH-AN-08"}, suite_modules=["test_bash_rules"], create=StringPrefix)
