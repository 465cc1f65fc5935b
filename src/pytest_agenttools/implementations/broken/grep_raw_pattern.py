"""grep and glob hand patterns to the system unchecked and on the command line, and show what
the system says: a 128 KiB pattern or glob comes back as "Argument list too long".

The shared argument layer still refuses a NUL or an unpaired surrogate; what this one lacks is
the search's own care: no length check, no pattern file for a long pattern, and the system's
refusal to start rg (E2BIG) passed through as the operating system's error string.
"""

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import ripgrep
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Unchecked(SearchOps):
    def check_text(self, value: str, tool: str, name: str, *, max_chars: int, what: str) -> str:
        return value

    def run(
        self,
        argv: Sequence[str],
        cwd: str,
        *,
        timeout: float,
        max_bytes: int,
        cancel: threading.Event | None,
        env: Mapping[str, str] | None,
    ) -> ripgrep.RgRun:
        return ripgrep.run(argv, cwd, timeout=timeout, max_bytes=max_bytes, cancel=cancel, env=env)


class Grep(Unchecked, GrepOps):
    @contextmanager
    def pattern_arguments(self, pattern: str) -> Iterator[list[str]]:
        yield [f"--regexp={pattern}"]


class Glob(Unchecked, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-INPUT-01", "GLOB-INPUT-01"},
    suite_modules=["test_grep_limits", "test_glob_limits"],
    create=create,
)
