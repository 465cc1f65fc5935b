"""Cursor: results wrapped in tags, read lines as `L12: text`."""

from __future__ import annotations

from pytest_agenttools.implementations.alternatives._base import (
    Alternative,
    Style,
    ToolStyle,
)
from pytest_agenttools.implementations.alternatives.presenters import (
    bash,
    edit,
    glob,
    grep,
    read,
    write,
)

STYLE = Style(
    name="tagged",
    modelled_on="Cursor",
    summary="results wrapped in tags, read lines as `L12: text`",
    read=ToolStyle(present=read._tagged, manifest={"output": {"line_numbers": "none"}}),
    write=ToolStyle(
        present=write._restyle(write._cursor_success, write._cursor_error),
        manifest={
            "dialect": {"arguments": {"write.path": "file_path", "write.content": "contents"}}
        },
    ),
    edit=ToolStyle(present=edit._cursor),
    grep=ToolStyle(present=grep.rewrite(grep._cursor, grep._cursor_errors)),
    glob=ToolStyle(present=grep.rewrite(glob._cursor, glob._cursor_errors)),
    bash=ToolStyle(present=bash._cursor),
)


def create() -> Alternative:
    return Alternative(STYLE)
