"""The operations port of grep and glob: every seam through which a search reaches the system.

The tools call these methods and nothing else for their file-system and process work (where
the search runs, which ripgrep flags and environment it gets, which files it may select, how
rg is run, how results are ordered). A variant of the reference (a broken or an alternative
implementation) passes another port to ``ReferenceTools(ops={"grep": ..., "glob": ...})``;
no module is patched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from pytest_agenttools.implementations.reference import (
    fsport,
    ripgrep,
    search_filters,
    search_input,
    search_paging,
    search_root,
)
from pytest_agenttools.implementations.reference.results import ToolError

#: Variables that steer ripgrep from outside the call: never passed to rg (GREP-CONFIG-01).
ENGINE_ENV_DROP = frozenset({"RIPGREP_CONFIG_PATH"})
#: A pattern longer than this (UTF-8 bytes) goes to rg in a file, not on the command line:
#: Linux refuses a single argument over 128 KiB ("Argument list too long").
INLINE_PATTERN_BYTES = 32 * 1024


def _path_max() -> int:
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        return 4096


#: the longest path the system opens: the walk's depth limit
PATH_MAX = _path_max()


def too_deep_note(found: ripgrep.RgRun, root: str) -> str:
    """The notice for paths the walk could not enter (``RgRun.too_deep``), else ""."""
    if not found.too_deep:
        return ""
    return (
        f"[{found.too_deep} path(s) below {root} were not searched: they pass the system's "
        f"path length limit ({PATH_MAX} bytes), so files nested that deep are missing here. "
        "Search from a directory further down (path=...), or list them with bash `find`.]"
    )


class SearchOps:
    """What grep and glob share: the root, rg's flags and environment, selection, the run."""

    def rg(self, services: dict[str, object]) -> str:
        return ripgrep.rg_path(services)

    def check_text(self, value: str, tool: str, name: str, *, max_chars: int, what: str) -> str:
        """GREP-INPUT-01, GLOB-INPUT-01: a pattern that cannot reach the search is refused."""
        return search_input.check_text(value, tool, name, max_chars=max_chars, what=what)

    def resolve_root(
        self, raw: object | None, cwd: str, env: Mapping[str, str] | None, tool: str
    ) -> search_root.Root:
        return search_root.resolve(raw, cwd, env, tool)

    def base_flags(self) -> list[str]:
        """GREP-CONFIG-01, GLOB-CONFIG-01: ``--no-config`` first, so no ripgrep config file
        (RIPGREP_CONFIG_PATH) can add ``--pre``, ``--no-ignore``, ``--follow`` or anything else."""
        return list(ripgrep.BASE_FLAGS)

    def engine_env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        """rg's environment: this process's, without the variables that steer rg from outside.

        The call's ``env`` is what commands the model runs would inherit; rg is the tool's own
        machinery and never takes configuration from it.
        """
        return {k: v for k, v in os.environ.items() if k not in ENGINE_ENV_DROP}

    def selection(
        self, user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
    ) -> list[str]:
        """rg arguments that select files; the sensitive exclusions last (GREP-SENS-02)."""
        return search_filters.glob_arguments(user_globs, default_dirs=default_dirs, bulky=bulky)

    def path_filter(self, user_globs: Sequence[str]) -> Callable[[bytes], bool] | None:
        try:
            return search_filters.path_filter(user_globs)
        except re.error as exc:
            raise ToolError(
                "invalid_argument", f"A glob pattern is not valid: {exc}. Check its [...] classes."
            ) from None

    def inside_default_excluded(self, root: str, cwd: str) -> bool:
        return search_filters.inside_default_excluded(root, cwd)

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
        """Run rg under the deadline (GREP-TIME-01, GLOB-TIME-01) and the output cap
        (GREP-OUT-01, GLOB-OUT-01); a command line the system refuses is a clear error."""
        try:
            return ripgrep.run(
                argv, cwd, timeout=timeout, max_bytes=max_bytes, cancel=cancel, env=env
            )
        except OSError as exc:
            if exc.errno == errno.E2BIG:
                raise ToolError(
                    "too_long",
                    "The search arguments are too long for the system to start the search "
                    "(over its command-line size limit). Pass fewer or shorter glob patterns.",
                ) from None
            raise ToolError(
                "engine_failed", f"The search could not be started: {exc.strerror or exc}."
            ) from None

    def newest_first(self, base: bytes, names: Sequence[bytes]) -> list[bytes]:
        return search_paging.newest_first(base, names)


class GrepOps(SearchOps):
    """grep's seams: how the pattern reaches rg, and the lines shown around a match."""

    @contextlib.contextmanager
    def pattern_arguments(self, pattern: str) -> Iterator[list[str]]:
        """The rg arguments that carry ``pattern`` as a pattern, never as an option.

        GREP-FLAG-01: ``--regexp=`` binds the value, so ``--pre=cat`` stays text.
        GREP-INPUT-01: a long pattern goes in a private file (``--file``), because a single
        command-line argument over 128 KiB makes the system refuse to start rg.
        """
        data = pattern.encode("utf-8")
        if len(data) <= INLINE_PATTERN_BYTES:
            yield [f"--regexp={pattern}"]
            return
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, after rg ran)
            prefix=fsport.owned_prefix("pattern"), suffix=".txt", delete=False
        )
        try:
            with handle:
                handle.write(data)
            yield [f"--file={handle.name}"]
        finally:
            with contextlib.suppress(OSError):
                os.unlink(handle.name)

    def named_file(self, root: search_root.Root, cap: int) -> bool:
        """GREP-SIZE-02: whether to search the file named by ``path``; one larger than the cap
        is refused with an error that says so (never skipped in silence)."""
        size = os.stat(root.path).st_size
        if size > cap:
            raise ToolError(
                "too_large",
                f"{root.path} is {size:,} bytes, larger than the {cap:,} bytes grep searches in "
                "one file (grep.max_filesize). Read it in pages with read (offset and limit), or "
                "search a smaller file.",
                size=size,
                max_filesize=cap,
            )
        return True

    def oversized(
        self,
        argv: Sequence[str],
        cwd: str,
        cap: int,
        *,
        timeout: float,
        cancel: threading.Event | None,
        env: Mapping[str, str] | None,
        keep: Callable[[bytes], bool] | None = None,
        most: int = 5,
    ) -> tuple[int, list[str]]:
        """Files a directory search skipped for being over ``cap`` bytes (GREP-SIZE-01): how
        many, and the first ``most`` names. ``argv`` lists the searched files (``--files``
        with the search's selection); asked only when a search found nothing."""
        found = self.run(argv, cwd, timeout=timeout, max_bytes=64 << 20, cancel=cancel, env=env)
        count, names = 0, list[str]()
        try:
            base = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return 0, []
        try:
            for index, name in enumerate(found.records(b"\0")):
                if index % 4096 == 0 and cancel is not None and cancel.is_set():
                    break
                if keep is not None and not keep(name):
                    continue
                try:
                    size = os.stat(name, dir_fd=base, follow_symlinks=False).st_size
                except OSError:
                    continue
                if size > cap:
                    count += 1
                    if len(names) < most:
                        names.append(os.fsdecode(name))
        finally:
            os.close(base)
        return count, names

    def window(
        self,
        numbers: Sequence[int],
        number: int,
        context: int,
        cancel: threading.Event | None = None,
    ) -> Sequence[int]:
        """The line numbers (from the sorted ``numbers`` rg printed) within ``context`` of a
        match: found by bisection, so a context of 10^12 costs no more than the lines there
        (GREP-INPUT-01); nothing here is long enough to need ``cancel``."""
        import bisect

        low = bisect.bisect_left(numbers, number - context)
        high = bisect.bisect_right(numbers, number + context)
        return numbers[low:high]


class GlobOps(SearchOps):
    """glob's seams: the pattern dialect (``gitignore`` by default) and its matcher.

    ``dialect`` is what the manifest declares (``dialect.glob``); ``dot`` says whether ``*`` and
    ``**`` match names that start with a dot in the bash and minimatch dialects (bash's
    ``dotglob``, minimatch's ``dot``); gitignore globs always match them.
    """

    def __init__(self, dialect: str = "gitignore", *, dot: bool = False) -> None:
        if dialect not in ("gitignore", "bash", "minimatch"):
            raise ValueError(f"unknown glob dialect {dialect!r}")
        self.dialect = dialect
        self.dot = dot

    def anchored_matcher(self, pattern: str) -> Callable[[bytes], bool]:
        """For the bash and minimatch dialects: a check on each relative path rg listed."""
        from pytest_agenttools.implementations.reference import globmatch

        try:
            regex = globmatch.compile_anchored(pattern, dot=self.dot)
        except (globmatch.GlobSyntaxError, re.error) as exc:
            raise ToolError(
                "invalid_argument", f"glob: pattern {pattern!r} cannot be used: {exc}."
            ) from None

        def keep(raw: bytes) -> bool:
            return bool(regex.match(os.fsdecode(raw)))

        return keep
