"""Codex: every error worded differently, with its own vocabulary."""

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
    name="reworded_errors",
    modelled_on="Codex",
    summary="every error worded differently, with its own vocabulary",
    read=ToolStyle(present=read._reworded),
    write=ToolStyle(present=write._restyle(write._codex_success, write._codex_error)),
    edit=ToolStyle(present=edit._codex),
    grep=ToolStyle(
        present=grep.rewrite(
            lambda a, c, r, f: grep.text_of(r), grep.codex_errors("grep", grep.ARGUMENTS)
        )
    ),
    glob=ToolStyle(
        present=grep.rewrite(
            lambda a, c, r, f: glob.text_of(r), grep.codex_errors("glob", glob.ARGUMENTS)
        ),
        manifest={"dialect": {"glob": "bash"}},
        setup=Setup(ops={"glob": GlobOps("bash")}),
    ),
    # Codex: 10 s default, no tool-level cap; a background task as under MiniMax's watchdog:
    # 30 minutes when it names no timeout, no cap on one it asks for
    bash=ToolStyle(
        present=bash._codex,
        setup=Setup(
            limits={
                "bash.default_timeout_s": 10.0,
                "bash.max_timeout_s": 0,
                "bash.background_default_timeout_s": 1800.0,
                "bash.background_max_timeout_s": 0,
            },
        ),
    ),
)


def create() -> Alternative:
    return Alternative(STYLE)
