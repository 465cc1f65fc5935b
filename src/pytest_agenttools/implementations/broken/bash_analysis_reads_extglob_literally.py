"""bash/analyze reads an extended glob as a literal word: with ``shopt -s extglob`` on an earlier
line, ``ls @(src|lib)/*.py`` comes out ``reusable`` (a prefix rule for ``ls`` covers it), though
which files it names depends on the directory, as for any glob."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import command_rules
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

#: an extended glob group: one of ! @ + * ? and a parenthesised list without nesting
EXTGLOB = re.compile(r"[!@+*?]\([^()]*\)")


def _analyze(params: Any, services: dict[str, Any]) -> dict[str, Any]:
    command = params["command"]
    groups = EXTGLOB.findall(command)
    answer = command_rules.analyze(EXTGLOB.sub("extglob_group", command))
    for part in answer["parts"]:
        for group in groups:
            part["text"] = part["text"].replace("extglob_group", group, 1)
    return answer


class LiteralExtglob(ReferenceTools):
    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        return _analyze if name == "bash/analyze" else super().method(name)


BROKEN = Broken(
    caught_by={"BASH-AN-01"},
    suite_modules=["test_bash_analysis"],
    create=LiteralExtglob,
)
