"""bash blocks commands its policy flags (sudo, a pipe into sh, rm -rf ...) but answers with a
success: the text says "blocked", the observation an exit code of 0, and nothing ran."""

from __future__ import annotations

import re
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import bash
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

POLICY = re.compile(r"\bsudo\b|\|\s*sh\b|\brm\s+-rf\b|\bchmod\s+-R\b|\bdd\b|\beval\b")


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str) or not POLICY.search(command):
        return bash.run(arguments, ctx)
    observation = {
        "output": "",
        "exit_code": 0,  # the defect: a block reported as a clean exit
        "signal": None,
        "timed_out": False,
        "aborted": False,
        "truncated": False,
        "running": False,
        "background": False,
    }
    return {
        "content": [{"type": "text", "text": "Command blocked by the security policy."}],
        "isError": False,
        "details": {"observation": observation},
    }


def create() -> ReferenceTools:
    return ReferenceTools(runs={"bash": run})


BROKEN = Broken(
    caught_by={"BASH-EXIT-07"},
    suite_modules=["test_bash"],
    create=create,
)
