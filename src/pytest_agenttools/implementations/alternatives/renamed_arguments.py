"""OpenCode: its own argument names (filePath, oldString, startLine ...) in every error."""

from __future__ import annotations

import functools
import re

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
from pytest_agenttools.implementations.reference import edit as reference_edit

#: its read's ``00001| line`` prefix, which its edit strips on a retry (EDIT-LN-02)
PIPE_PREFIX = re.compile(r"^\s*\d+ ?\| (.*)$", re.S)

STYLE = Style(
    name="renamed_arguments",
    modelled_on="OpenCode",
    summary="its own argument names (filePath, oldString, startLine ...) in every error",
    read=ToolStyle(
        present=read._renamed,
        manifest={
            "output": {"line_numbers": "pipe"},
            "dialect": {"arguments": {f"read.{k}": v for k, v in read.RENAMED.items()}},
        },
    ),
    write=ToolStyle(
        present=write._restyle(write._opencode_success, write._opencode_error),
        manifest={"dialect": {"arguments": {"write.path": "filePath"}}},
    ),
    edit=ToolStyle(
        present=edit._opencode,
        manifest={"dialect": {"arguments": {f"edit.{k}": v for k, v in edit.OPENCODE.items()}}},
        setup=Setup(
            runs={
                "edit": functools.partial(
                    reference_edit.run, steps=reference_edit.Steps(number_prefix=PIPE_PREFIX)
                )
            }
        ),
    ),
    grep=ToolStyle(
        present=grep.rewrite(grep._opencode, grep._opencode_errors),
        manifest={"dialect": {"arguments": grep.OPENCODE_NAMES}},
    ),
    glob=ToolStyle(
        present=grep.rewrite(glob._opencode, glob._opencode_errors),
        manifest={"dialect": {"arguments": glob.OPENCODE_NAMES}},
    ),
    bash=ToolStyle(
        present=bash._opencode,
        manifest={
            "dialect": {
                "arguments": {
                    "bash.run_in_background": "background",
                    "task_output.task_id": "taskId",
                }
            }
        },
    ),
)


def create() -> Alternative:
    return Alternative(STYLE)
