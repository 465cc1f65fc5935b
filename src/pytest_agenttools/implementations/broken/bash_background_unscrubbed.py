"""bash sanitises a foreground command's environment, but a background task inherits all of it."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.reference import env_sanitize
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash_env"]
CAUGHT_BY = {"BASH-BG-04"}


class ForegroundOnly(BashOps):
    def environment(
        self, inherited: Mapping[str, str], mode: str | None, *, background: bool
    ) -> env_sanitize.Sanitized:
        result = super().environment(inherited, mode, background=background)
        if background:  # the defect: the task gets the host's environment as it is
            return env_sanitize.Sanitized(dict(inherited), result.mode, ())
        return result


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": ForegroundOnly()})
