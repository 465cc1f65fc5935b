"""bash honours the scrub mode in name only: under `scrub` the environment passes through."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pytest_agenttools.reference_impl import bash, env_sanitize
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash_env"]
CAUGHT_BY = {"BASH-ENV-03"}


def leaky(
    env: Mapping[str, str], explicit: str | None = None, allow: Iterable[str] = ()
) -> env_sanitize.Sanitized:
    result = env_sanitize.sanitize(env, explicit, allow)
    if result.mode != "scrub":
        return result
    kept = {k: v for k, v in env.items() if not k.startswith("AGENTTOOLS_")} | {
        k: v for k, v in env.items() if k in env_sanitize.BOUNDARY_KEEP
    }
    return env_sanitize.Sanitized(kept, "scrub", tuple(sorted(set(env) - set(kept))))


def create() -> ReferenceTools:
    bash.sanitize = leaky
    return ReferenceTools()
