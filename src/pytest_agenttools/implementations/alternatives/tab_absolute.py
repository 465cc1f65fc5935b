"""Claude Code: line numbers with a tab, absolute paths in search results, its own error wording."""

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

STYLE = Style(
    name="tab_absolute",
    modelled_on="Claude Code",
    summary="line numbers with a tab, absolute paths in search results, its own error wording",
    read=ToolStyle(present=read._tab_absolute, manifest={"output": {"line_numbers": "tab"}}),
    write=ToolStyle(
        present=write._restyle(write._claude_success, write._claude_error),
        manifest={"dialect": {"arguments": {"write.path": "file_path"}}},
        setup=Setup(ops={"write": write.KeepsCrlf()}),
    ),
    edit=ToolStyle(present=edit._claude),
    grep=ToolStyle(present=grep.rewrite(grep._claude, grep._claude_errors)),
    glob=ToolStyle(present=grep.rewrite(glob._claude, glob._claude_errors)),
    # Claude Code: 30,000 characters of output
    bash=ToolStyle(
        present=bash._claude,
        manifest={"dialect": {"arguments": {"task_output.task_id": "bash_id"}}},
        setup=Setup(
            limits={"bash.output_max_bytes": 30_000},
            units={"bash.output_max_bytes": "chars"},
            ops={"bash": bash.NodeStyleOps(stdin="closed")},
        ),
    ),
)


def create() -> Alternative:
    return Alternative(STYLE)
