"""confine.bash declared, and the temp root set, but the command runs with no jail around it."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import confine
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoJail(confine.Sandbox):
    def argv(self, roots: confine.Roots, cwd: str, writable: Sequence[str]) -> list[str]:
        return []


def create() -> ReferenceTools:
    return ReferenceTools(confinement=confine.Confinement(sandbox=NoJail()))


BROKEN = Broken(
    caught_by={"BASH-CONF-01", "BASH-CONF-02", "BASH-CONF-04"},
    suite_modules=["test_bash_confine"],
    create=create,
)
