"""``pages`` on a file that is not a PDF is ignored: the file is read from its first line."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import paths, read
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if (
        isinstance(arguments, dict)
        and "pages" in arguments
        and isinstance(arguments.get("path"), str)
    ):
        path = paths.expand(arguments["path"], ctx.cwd, ctx.env)
        try:
            with open(path, "rb") as handle:
                pdf = path.lower().endswith(".pdf") or handle.read(5) == b"%PDF-"
        except OSError:
            pdf = True
        if not pdf:
            arguments = {k: v for k, v in arguments.items() if k != "pages"}
    return read.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"read": run})


BROKEN = Broken(
    caught_by={"READ-PDF-06"},
    suite_modules=["test_read_formats"],
    create=create,
)
