"""A policy-enforcing MCP server: a search rooted in a sensitive directory is refused with an
error, not answered empty."""

from __future__ import annotations

from pytest_agenttools.implementations.alternatives._base import (
    Alternative,
    Style,
    ToolStyle,
)
from pytest_agenttools.implementations.alternatives.presenters import grep

STYLE = Style(
    name="refuses_sensitive",
    modelled_on="a policy-enforcing MCP server",
    summary="a search rooted in a sensitive directory is refused with an error, not answered empty",
    grep=ToolStyle(present=grep.refuse_sensitive("grep")),
    glob=ToolStyle(present=grep.refuse_sensitive("glob")),
)


def create() -> Alternative:
    return Alternative(STYLE)
