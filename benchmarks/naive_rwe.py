"""A small naive implementation for benchmarks/bench_first_verdict.py: read, write and edit
written the obvious way (the broken package's naive tools: a read that opens whatever it is
given and numbers every line, a write that writes the text as UTF-8, an edit that replaces with
JavaScript's `$` patterns), declaring those three tools only and nothing else: no features, no
limits, no settings. It fails many core clauses, as a first attempt does."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.broken.edit_naive import run as naive_edit
from pytest_agenttools.implementations.broken.read_naive import naive_read
from pytest_agenttools.implementations.broken.write_naive import naive_write
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

TOOLS = ("read", "write", "edit")


class NaiveReadWriteEdit(ReferenceTools):
    def __init__(self) -> None:
        super().__init__(runs={"read": naive_read, "write": naive_write, "edit": naive_edit})

    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest.update(
            name="naive-read-write-edit",
            tools=list(TOOLS),
            features=[],
            limits={},
            settings=[],
            output={"line_numbers": manifest["output"]["line_numbers"]},
        )
        return manifest


def create() -> NaiveReadWriteEdit:
    return NaiveReadWriteEdit()
