"""confine.network declared, but the sandbox keeps the host's network namespace: a command
reaches the host's loopback whatever `network` says."""

from __future__ import annotations

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import confine
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class SharedNetwork(confine.Sandbox):
    isolate_network = False


def create() -> ReferenceTools:
    return ReferenceTools(confinement=confine.Confinement(sandbox=SharedNetwork()))


BROKEN = Broken(
    caught_by={"BASH-NET-01"},
    suite_modules=["test_bash_confine"],
    create=create,
)
