"""bash: commands run in bash (not ``/bin/sh``), as a non-interactive shell.

Each probe is a command whose output only bash gives: a POSIX ``sh`` (dash, busybox ash) fails
it with a syntax error or prints something else. The probes judge the observed output, not the
wording of any error.
"""

from __future__ import annotations

import re

import pytest

from pytest_agenttools import ToolClient
from pytest_agenttools.harness.assertions import bash_obs
from pytest_agenttools.harness.markers import clause

#: (name, command, what bash prints)
BASH_ONLY = [
    ("array", 'a=(alpha beta gamma); echo "${a[2]} ${#a[@]}"', "gamma 3\n"),
    ("double-brackets", "[[ abc == a* && 2 -lt 10 ]] && echo matched", "matched\n"),
    ("brace-expansion", "echo {1..3} x{a,b}", "1 2 3 xa xb\n"),
    ("process-substitution", "cat <(echo inner)", "inner\n"),
    ("shopt", 'shopt -s extglob && x=aXbXc && echo "${x//X/-}"', "a-b-c\n"),
    ("here-string", "tr a-z A-Z <<< shout", "SHOUT\n"),
]


@clause("BASH-SHELL-01")
@pytest.mark.parametrize(
    ("command", "printed"), [p[1:] for p in BASH_ONLY], ids=[p[0] for p in BASH_ONLY]
)
def test_bash_syntax_runs(tools: ToolClient, command: str, printed: str) -> None:
    result = tools.call("bash", command=command)
    obs = bash_obs(result)
    assert obs.exit_code == 0 and obs.output == printed, (
        f"{command!r} printed {obs.output!r} (exit code {obs.exit_code}, signal {obs.signal}); "
        f"bash prints {printed!r}: the command did not run in bash"
    )


@clause("BASH-SHELL-01")
def test_bash_version_is_set(tools: ToolClient) -> None:
    obs = bash_obs(tools.call("bash", command='echo "${BASH_VERSINFO[0]}:$BASH_VERSION"'))
    found = re.fullmatch(r"(\d+):(\d+)\.\d+\S*\n", obs.output)
    assert found and found[1] == found[2] and int(found[1]) >= 3, (
        f"BASH_VERSINFO and BASH_VERSION gave {obs.output!r}: the command did not run in bash"
    )


@clause("BASH-SHELL-01")
def test_shell_is_not_interactive(tools: ToolClient) -> None:
    command = "case $- in *i*) echo interactive ;; *) echo batch ;; esac"
    obs = bash_obs(tools.call("bash", command=command))
    assert obs.output == "batch\n", (
        f"the shell's flags gave {obs.output!r}: a command runs in a non-interactive bash "
        "(`bash -c`: no `i` in `$-`)"
    )
