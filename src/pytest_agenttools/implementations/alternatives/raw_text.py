"""pi: no line numbers, pi's notices and wording, `path:N: text` grep lines, removed variable
names reported the first time only."""

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
    name="raw_text",
    modelled_on="pi",
    summary="no line numbers, pi's notices and wording, `path:N: text` grep lines, removed "
    "variable names reported the first time only",
    read=ToolStyle(
        present=read._raw_text,
        manifest={"output": {"line_numbers": "none"}},
        setup=Setup(runs={"read": read._clamped_run}),
    ),
    write=ToolStyle(present=write._restyle(write._pi_success, write._pi_error)),
    edit=ToolStyle(
        present=edit._pi,
        manifest={"dialect": {"arguments": {f"edit.{k}": v for k, v in edit.PI.items()}}},
    ),
    grep=ToolStyle(present=grep.rewrite(grep._pi)),
    glob=ToolStyle(present=grep.rewrite(glob._pi)),
    # pi: 2,000 lines or 50 KiB; removed variable names reported the first time only, as
    # MiniMax's wrapper of pi does
    bash=ToolStyle(
        present=bash._pi,
        setup=Setup(
            limits={"bash.output_max_bytes": 51_200, "bash.output_max_lines": 2000},
            ops={"bash": bash.NodeStyleOps(stdin="null")},
            runs={"bash": bash._first_report_run},
        ),
    ),
)


def create() -> Alternative:
    return Alternative(STYLE)
