"""Gemini CLI: truncation notices before the content, 0-based read offsets, grep matches grouped
per file, bash output under labels."""

from __future__ import annotations

from pytest_agenttools.implementations.alternatives._base import (
    Alternative,
    Setup,
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
from pytest_agenttools.implementations.reference.search_ops import GlobOps

STYLE = Style(
    name="header_first",
    modelled_on="Gemini CLI",
    summary="truncation notices before the content, 0-based read offsets, grep matches grouped "
    "per file, bash output under labels",
    read=ToolStyle(
        present=read._header_first,
        manifest={"output": {"line_numbers": "none"}, "dialect": {"offset_base": {"read": 0}}},
    ),
    write=ToolStyle(
        present=write._restyle(write._gemini_success, write._gemini_error),
        manifest={"dialect": {"arguments": {"write.path": "file_path"}}},
    ),
    edit=ToolStyle(present=edit._gemini),
    grep=ToolStyle(present=grep.rewrite(grep._gemini)),
    glob=ToolStyle(
        present=grep.rewrite(glob._gemini),
        manifest={"dialect": {"glob": "minimatch"}},
        setup=Setup(ops={"glob": GlobOps("minimatch", dot=True)}),
    ),
    bash=ToolStyle(present=bash._gemini, setup=Setup(runs={"bash": bash._bounded_timeout_run})),
)


def create() -> Alternative:
    return Alternative(STYLE)
