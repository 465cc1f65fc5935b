"""bash sanitises a foreground command's environment, but a background task inherits all of it."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import env_sanitize
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


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


BROKEN = Broken(
    caught_by={"BASH-BG-04"},
    suite_modules=["test_bash_env"],
    create=create,
)
