"""bash under confinement: the command's port, jailed by ``confine.Sandbox`` (confine.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.reference import confine, rm_shim
from pytest_agenttools.implementations.reference.env_sanitize import Sanitized
from pytest_agenttools.implementations.reference.processes import CommandProcess, Supervised
from pytest_agenttools.implementations.reference.results import ToolError

#: the command's temp and cache roots point here (BASH-CONF-03)
TEMP_VARIABLES = ("TMPDIR", "TMP", "TEMP")


class SandboxedOps:
    """bash's port with every command (foreground or task) started inside the sandbox."""

    def __init__(
        self,
        base: Any,
        confinement: confine.Confinement,
        roots: confine.Roots,
        services: dict[str, Any],
    ) -> None:
        self.base = base
        self.confinement = confinement
        self.roots = roots
        self.services = services

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def environment(
        self, inherited: Mapping[str, str], mode: str | None, *, background: bool
    ) -> Sanitized:
        """BASH-CONF-03: temp and cache variables name the sandbox's own writable root."""
        result = self.base.environment(inherited, mode, background=background)
        temp = self.confinement.temp_root()
        env = dict(result.env)
        for name in TEMP_VARIABLES:
            env[name] = temp
        env["XDG_CACHE_HOME"] = os.path.join(temp, "cache")
        return Sanitized(env, result.mode, result.removed)

    def spawn(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str],
        *,
        keepalive: bool,
        grace: float,
    ) -> CommandProcess:
        """BASH-CONF-04: the jail is the command's first process; all it starts stay in it."""
        writable = [self.confinement.temp_root(), rm_shim.trash_dir(self.services)]
        os.makedirs(writable[1], exist_ok=True)
        wrap = self.confinement.sandbox.argv(self.roots, cwd, writable)
        return Supervised(command, cwd, env, keepalive=keepalive, grace=grace, wrap=wrap)


def sandboxed_ops(services: dict[str, Any], ops: Any) -> Any:
    """bash's port, jailed when roots are set; ToolError when they are and no jail can run."""
    confinement = confine.of(services)
    if confinement is None or confinement.roots is None:
        return ops
    problem = confinement.sandbox.problem
    if problem is not None:
        raise ToolError(
            "sandbox_unavailable",
            f"bash: confine.roots is set (workspace_root {confinement.roots.workspace_root}) but "
            f"no sandbox can run here ({problem}); the command was not run.",
        )
    return SandboxedOps(ops, confinement, confinement.roots, services)
