"""bash makes the recoverable `rm` shim once and never checks it again: once a command deletes
it, `rm` falls through to the system rm on PATH and deletes for good."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import rm_shim
from pytest_agenttools.implementations.reference.bash import BashOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class MadeOnce(BashOps):
    def rm_shim(self, services: dict[str, Any]) -> str:
        made = services.get("broken.rm_shim_dir")
        if made is None:
            made = services["broken.rm_shim_dir"] = rm_shim.ensure(services)
        return str(made)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"bash": MadeOnce()})


BROKEN = Broken(
    caught_by={"BASH-RM-02"},
    suite_modules=["test_bash_rm"],
    create=create,
)
