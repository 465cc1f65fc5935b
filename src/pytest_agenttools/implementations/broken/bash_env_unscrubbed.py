"""bash honours the scrub mode in name only: under `scrub` the environment passes through."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import env_sanitize
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Leaky(BashOps):
    def environment(
        self, inherited: Mapping[str, str], mode: str | None, *, background: bool
    ) -> env_sanitize.Sanitized:
        result = super().environment(inherited, mode, background=background)
        if result.mode != "scrub":
            return result
        kept = {
            k: v
            for k, v in inherited.items()
            if not k.startswith("AGENTTOOLS_") or k in env_sanitize.BOUNDARY_KEEP
        }
        return env_sanitize.Sanitized(kept, "scrub", tuple(sorted(set(inherited) - set(kept))))


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": Leaky()})


BROKEN = Broken(
    caught_by={"BASH-ENV-03"},
    suite_modules=["test_bash_env"],
    create=create,
)
