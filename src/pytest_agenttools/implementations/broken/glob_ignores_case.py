"""glob matches names without regard to letter case (as on a case-insensitive file system):
`*.MD` lists `notes.md` too."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import glob
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def any_case(pattern: str) -> str:
    """Each letter outside a bracket class becomes a class of both its cases."""
    out, in_class = [], False
    for char in pattern:
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        out.append(f"[{char.lower()}{char.upper()}]" if char.isalpha() and not in_class else char)
    return "".join(out)


def run(arguments: Any, ctx: CallContext) -> dict[str, Any]:
    if isinstance(arguments, dict) and isinstance(arguments.get("pattern"), str):
        arguments = {**arguments, "pattern": any_case(arguments["pattern"])}  # the defect
    return glob.run(arguments, ctx)


def create() -> ReferenceTools:
    return ReferenceTools(runs={"glob": run})


BROKEN = Broken(
    caught_by={"GLOB-PAT-03"},
    suite_modules=["test_glob"],
    create=create,
)
