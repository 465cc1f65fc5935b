"""grep hands the pattern to rg as a bare argument: `--help` and `--pre=cat` become options."""

from collections.abc import Sequence
from typing import Any

from pytest_agenttools.reference_impl import ripgrep
from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_grep"]
CAUGHT_BY = {"GREP-FLAG-01"}
PREFIX = "--regexp="


def create() -> Any:
    original = ripgrep.run

    def run(argv: Sequence[str], cwd: str, **options: Any) -> ripgrep.RgRun:
        bare = [a[len(PREFIX) :] if a.startswith(PREFIX) else a for a in argv]
        return original(bare, cwd, **options)

    if not getattr(ripgrep.run, "broken", False):
        run.broken = True  # type: ignore[attr-defined]
        ripgrep.run = run
    return ReferenceTools()
