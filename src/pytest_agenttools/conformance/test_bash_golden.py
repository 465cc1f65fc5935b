"""Golden output of bash and task_output for the `agenttools-reference/1` profile.

The contract facts are asserted by the other bash modules; these pin the wording. Update with
``--snapshot-update --agenttools-golden-dir conformance/__snapshots__`` and review the diff.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.harness.markers import clause, profile
from pytest_agenttools.run.snapshots import mask

REFERENCE = "agenttools-reference/1"
STABLE_DETAILS = (
    "error",
    "exitCode",
    "signal",
    "timedOut",
    "aborted",
    "truncated",
    "totalBytes",
    "omittedBytes",
    "status",
    "background",
)
FULL_OUTPUT = re.compile(r"/\S*agenttools-bash-[^\s)]*\.log")
TASK_ID = re.compile(r"\bbash-\d+\b")


def rendered(result: Any, workspace: Any) -> dict[str, Any]:
    def clean(text: str) -> str:
        return TASK_ID.sub("bash-N", FULL_OUTPUT.sub("<full-output>", mask(text, str(workspace))))

    details = {k: result.details[k] for k in STABLE_DETAILS if k in result.details}
    return {"isError": result.is_error, "text": clean(result.text), "details": details}


CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "exit-code": ("printf 'one\\ntwo\\n'; exit 3", {}),
    "signal": ("echo partial; kill -TERM $$", {}),
    "no-output": ("true", {}),
    "timeout": ("echo started; sleep 30", {"timeout": 1}),
    "cut": ("seq 1 100", {}),
    "control": ("printf 'a\\033[1mb\\tc\\r\\n\\001d\\n'", {}),
    "utf8": ("printf 'caf\\xc3\\xa9 \\xe4\\xb8\\xad\\n'", {}),
}


@clause("BASH-GOLD-01")
@profile(REFERENCE)
@pytest.mark.parametrize("case", sorted(CASES))
def test_bash_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any, case: str) -> None:
    tools.configure(
        **{"bash.kill_grace_s": 0.5, "bash.output_max_bytes": 120, "bash.output_max_lines": 10}
    )
    command, arguments = CASES[case]
    assert rendered(tools.call("bash", command=command, **arguments), ws) == agenttools_golden


@clause("BASH-GOLD-01")
@profile(REFERENCE)
def test_task_output_golden(tools: ToolClient, ws: Workspace, agenttools_golden: Any) -> None:
    started = tools.call("bash", command="echo one; echo two; exit 4", run_in_background=True)
    task_id = started.details["task_id"]
    finished = tools.call("task_output", task_id=task_id, block=True, timeout=30)
    missing = tools.call("task_output", task_id="bash-0")
    assert [rendered(r, ws) for r in (started, finished, missing)] == agenttools_golden
