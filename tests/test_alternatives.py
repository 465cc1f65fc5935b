"""Every alternative correct implementation passes the suite: a failure here means a clause
judges the reference's layout, wording or dialect instead of behaviour.

One test per (style, tool), each running that tool's part of the suite through the CLI as a
user would, narrowed to what a style can change (its presentation, its dialect and the
behaviour its setup swaps); the slow process-tree and memory properties, which judge the
process table only, run in the full conformance runs. Tools whose suites have not moved to
observations yet have no entry in ``SUITES``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_agenttools

from pytest_agenttools.alternatives import STYLES

#: tool -> pytest arguments selecting the part of its suite a style can change
SUITES: dict[str, list[str]] = {
    "bash": [
        "-k",
        "(test_bash.py or test_bash_output.py or test_bash_output_file.py or test_task_texts "
        "or test_handover_text or test_bash_env.py or test_bash_rm.py) and not bounded_memory",
    ],
}


@pytest.mark.parametrize("tool", sorted(SUITES))
@pytest.mark.parametrize("style", sorted(STYLES))
def test_alternative_passes(style: str, tool: str, tmp_path: Path) -> None:
    impl = f"pytest_agenttools.alternatives:{style}"
    done = run_agenttools("run", "--impl", impl, "--tools", tool, "--", *SUITES[tool], cwd=tmp_path)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0 and " 0 failed, 0 error" in summary, (
        f"the alternative {style} ({STYLES[style].modelled_on}) fails {tool} clauses: a clause "
        f"judges presentation, not behaviour.\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    )
