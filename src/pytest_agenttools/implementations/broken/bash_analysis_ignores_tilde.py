"""bash/analyze reads an unquoted ``~`` as a literal word, not as the home directory: ``ls ~`` is
``reusable`` (a prefix rule may cover it) and ``rm -rf ~`` deletes a directory named ``~``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import command_rules
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def _analyze(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    command = params["command"]
    answer = command_rules.analyze(command.replace("~", "_tilde_"))
    for part in answer["parts"]:
        part["text"] = part["text"].replace("_tilde_", "~")
    return answer


class LiteralTilde(ReferenceTools):
    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        return _analyze if name == "bash/analyze" else super().method(name)


BROKEN = Broken(
    caught_by={"BASH-AN-01", "BASH-AN-05"},
    suite_modules=["test_bash_analysis", "test_bash_rules"],
    create=LiteralTilde,
)
