"""Claude Code's output caps: size limits counted in characters, not bytes."""

from __future__ import annotations

from pytest_agenttools.implementations.alternatives._base import (
    Alternative,
    Setup,
    Style,
    ToolStyle,
)
from pytest_agenttools.implementations.alternatives.presenters import bash

STYLE = Style(
    name="char_units",
    modelled_on="Claude Code's output caps",
    summary="size limits counted in characters, not bytes",
    read=ToolStyle(setup=Setup(units={"read.max_bytes": "chars"})),
    bash=ToolStyle(present=bash._chars, setup=Setup(units={"bash.output_max_bytes": "chars"})),
)


def create() -> Alternative:
    return Alternative(STYLE)
