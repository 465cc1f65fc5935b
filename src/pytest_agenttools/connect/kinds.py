"""The adapter kinds: one typed table, the one way a run and ``agenttools call`` reach an
implementation.

A kind looks at the settings (``--impl``, ``--cmd``, ``--mcp`` ...) and builds its adapter, or
answers None to let the next kind decide; the first that answers wins, and the in-process kind,
last, answers every time (the bundled reference when nothing was chosen). A new kind is a module
with its adapter and one row here. A plugin outside the kit adds a kind through the
``pytest_agenttools_make_adapter`` hook instead: the kit's own implementation of that hook is
this table, and runs last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pluggy

from pytest_agenttools.connect import inprocess, stdio
from pytest_agenttools.connect.base import Adapter, AdapterError, Target
from pytest_agenttools.connect.mcp import client as mcp

hookimpl = pluggy.HookimplMarker("pytest")


@dataclass(frozen=True)
class AdapterKind:
    """One way of reaching an implementation."""

    name: str
    #: the option that chooses it, for messages and docs ("" for the fallback)
    option: str
    #: the adapter for these settings, or None when they do not choose this kind
    build: Callable[[Mapping[str, Any]], Adapter | None]


KINDS: tuple[AdapterKind, ...] = (
    AdapterKind("mcp", "--mcp with --mcp-mapping", mcp.from_settings),
    AdapterKind("stdio", "--cmd", stdio.from_settings),
    AdapterKind("inprocess", "--impl (or nothing: the bundled reference)", inprocess.from_settings),
)


def check_kinds(kinds: Sequence[AdapterKind]) -> None:
    """Names are unique; checked at import, so a table edited wrong fails at once."""
    names = [k.name for k in kinds]
    if len(set(names)) != len(names):
        raise ValueError(
            f"adapter kinds named twice: {sorted(n for n in names if names.count(n) > 1)}"
        )


check_kinds(KINDS)


def build_adapter(
    settings: Mapping[str, Any], kinds: Sequence[AdapterKind] | None = None
) -> Adapter:
    """The adapter of the first kind that the settings choose."""
    for kind in KINDS if kinds is None else kinds:
        adapter = kind.build(settings)
        if adapter is not None:
            return adapter
    raise AdapterError(
        "no adapter kind accepts these settings; choose one with "
        + "; ".join(k.option for k in (KINDS if kinds is None else kinds))
    )


@hookimpl(trylast=True)
def pytest_agenttools_make_adapter(config: Any, settings: dict[str, Any]) -> Adapter:
    """The kit's own kinds (``KINDS``), after any plugin's."""
    return build_adapter(settings)


__all__ = ["KINDS", "AdapterKind", "Target", "build_adapter", "check_kinds"]
