"""Hooks other plugins implement to extend the kit without editing it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy
import pytest

if TYPE_CHECKING:
    from pytest_agenttools.connect.base import Adapter

_spec = pluggy.HookspecMarker("pytest")


@_spec(firstresult=True)
def pytest_agenttools_make_adapter(
    config: pytest.Config, settings: dict[str, Any]
) -> Adapter | None:
    """Build the adapter for this run, or return None to let the next plugin decide.

    :param config: the pytest config.
    :param settings: what the run reaches, as the keys of
        :class:`pytest_agenttools.connect.base.Target`: ``impl``, ``cmd``, ``mcp``,
        ``mcp_mapping``, ``manifest`` (a parsed manifest file or None) and ``call_timeout``
        (seconds). A plugin that adds a new kind of adapter (a container runner) reads its own
        options from ``config`` and returns an object that satisfies
        :class:`pytest_agenttools.Adapter`.

    The kit's own implementation runs last: the table of adapter kinds
    (``pytest_agenttools.connect.kinds.KINDS``) builds the MCP adapter when ``mcp`` is set, the
    stdio adapter when ``cmd`` is set, and the in-process one (``impl``, else the bundled
    reference) otherwise. A kind inside the kit is a row of that table.
    """
    return None
