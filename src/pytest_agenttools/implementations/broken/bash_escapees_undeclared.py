"""bash ends a command's process group only and leaves bash.subreaper out of its manifest, as
most agents do: `setsid` children and double-forked daemons outlive a timeout, an abort and the
shutdown. Declaring less must not excuse them (BASH-KILL-04, BASH-SHUT-04 are core clauses)."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.bash_group_kill_only import GroupOnlyOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Undeclared(ReferenceTools):
    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["features"] = [f for f in manifest["features"] if f != "bash.subreaper"]
        return manifest


def create() -> ReferenceTools:
    return Undeclared(ops={"bash": GroupOnlyOps()})


BROKEN = Broken(
    caught_by={"BASH-KILL-04", "BASH-SHUT-04"},
    suite_modules=["test_bash_kill", "test_bash_lifecycle"],
    create=create,
)
