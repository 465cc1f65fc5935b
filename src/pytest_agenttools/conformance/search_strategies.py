"""What the grep and glob suites share: observation readers, leak checks, text checks, trees.

Behaviour is read from ``details.observation`` (GrepObservation, GlobObservation), whose paths
are absolute or relative to the call's ``cwd``; :func:`rel` turns them into paths relative to
the workspace (or a search root) so tests compare them with what they built. Presentation is
judged with :func:`expect_carries_results` (every result of the observation appears in the text,
in some form and in order) and never by parsing one layout. The sensitive names and excluded
directories come from the spec's tables, through :mod:`pytest_agenttools.fixtures.trees`.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, ToolResult, Workspace
from pytest_agenttools.fixtures import trees
from pytest_agenttools.harness.assertions import (
    WORKSPACE_MASK,
    expect_ok,
    glob_obs,
    grep_obs,
    masked_text,
    path_forms,
    relative_paths,
    shown,
    shown_forms,
)
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.observations import GlobObservation, GrepObservation
from pytest_agenttools.run.session import NOT_RUN, get_session

N = trees.NEEDLE
#: seconds: far beyond any correct answer, so only a hang gets near it
PROMPT = 60.0


# --- reading observations -------------------------------------------------------------------


def search(tools: ToolClient, tool: str, **arguments: Any) -> ToolResult:
    return tools.call(tool, _timeout=PROMPT, **arguments)


def rel(paths: Iterable[str], ws: Workspace | str, root: str | None = None) -> list[str]:
    """Observation paths relative to the workspace (or to ``root``, relative to it)."""
    cwd = str(ws.root) if isinstance(ws, Workspace) else ws
    base = os.path.join(cwd, root) if root else None
    return relative_paths(paths, cwd, base)


def found_files(result: ToolResult, ws: Workspace, root: str | None = None) -> list[str]:
    """Every path a grep or glob result names, in order, relative to ws (or ``root``)."""
    observed = result.observation
    if isinstance(observed, GlobObservation):
        return rel(observed.paths, ws, root)
    assert isinstance(observed, GrepObservation), f"not a search result: {observed!r:.80}"
    return rel(observed.paths, ws, root)


def grep_files(tools: ToolClient, ws: Workspace, root: str | None = None, **args: Any) -> set[str]:
    """The files a default-mode grep lists, relative to ws (or ``root``)."""
    result = expect_ok(search(tools, "grep", **args), f"grep({args})")
    observed = grep_obs(result)
    assert observed.mode == "files_with_matches", f"mode {observed.mode!r}, not files_with_matches"
    listed = rel(observed.files, ws, root)
    assert len(listed) == len(set(listed)), f"a file is listed twice: {listed}"
    return set(listed)


def glob_paths(tools: ToolClient, ws: Workspace, root: str | None = None, **args: Any) -> list[str]:
    result = expect_ok(search(tools, "glob", **args), f"glob({args})")
    return rel(glob_obs(result).paths, ws, root)


def content(
    result: ToolResult, ws: Workspace, root: str | None = None
) -> list[tuple[str, int, str, bool]]:
    """``(path, line, text, is_match)`` of a content-mode observation, in order."""
    observed = grep_obs(result)
    assert observed.mode == "content", f"mode {observed.mode!r}, not content"
    paths = rel([x.path for x in observed.lines], ws, root)
    return [(p, x.line, x.text, x.match) for p, x in zip(paths, observed.lines, strict=True)]


def counts(result: ToolResult, ws: Workspace, root: str | None = None) -> dict[str, int]:
    observed = grep_obs(result)
    assert observed.mode == "count", f"mode {observed.mode!r}, not count"
    paths = rel([c.path for c in observed.counts], ws, root)
    assert len(paths) == len(set(paths)), f"a file is counted twice: {paths}"
    return {p: c.count for p, c in zip(paths, observed.counts, strict=True)}


def page_items(result: ToolResult, ws: Workspace, root: str | None = None) -> list[Any]:
    """The results of one page: files, matching lines ``(path, line, text)``, counts, paths."""
    observed = result.observation
    if isinstance(observed, GlobObservation):
        return rel(observed.paths, ws, root)
    assert isinstance(observed, GrepObservation)
    if observed.mode == "content":
        return [(p, n, t) for p, n, t, m in content(result, ws, root) if m]
    if observed.mode == "count":
        return list(counts(result, ws, root).items())
    return rel(observed.files, ws, root)


def page_through(
    tools: ToolClient,
    tool: str,
    ws: Workspace,
    root: str | None = None,
    max_calls: int = 500,
    **arguments: Any,
) -> list[Any]:
    """Follow ``next_offset`` from 0; every page's results, in order (GREP/GLOB-PAGE-01)."""
    items: list[Any] = []
    offset = 0
    for _ in range(max_calls):
        result = expect_ok(search(tools, tool, offset=offset, **arguments))
        observed = result.observation
        assert isinstance(observed, GrepObservation | GlobObservation)
        page = page_items(result, ws, root)
        following = observed.next_offset
        if following is None:
            return items + page
        assert observed.truncated, f"next_offset={following} but truncated is false"
        assert page, f"{tool}(offset={offset}) shows nothing but offers next_offset={following}"
        assert following == offset + len(page), (
            f"{tool}(offset={offset}) shows {len(page)} results, so the next page starts at "
            f"{offset + len(page)}, but next_offset is {following}"
        )
        items += page
        offset = following
    raise AssertionError(f"still paging after {max_calls} calls")


# --- limits -------------------------------------------------------------------------------

#: The probe of an undeclared result cap: a tree of this many matching files (05-manifest.toml).
PROBE_FILES = 20_000
#: The probe of an undeclared file-size cap: a file of this many bytes.
PROBE_BYTES = 64 * 1024 * 1024
#: How much longer than its declared timeout a call may take to answer (stopping the search).
TIMEOUT_GRACE_S = 15.0


@dataclass(frozen=True)
class TimeoutCase:
    """How a timeout clause runs: shrunk with ``configure`` (then the call must time out), or,
    when the limit cannot be shrunk, with a big tree under ``--agenttools-slow`` (then the call
    must answer within the declared timeout and a grace period)."""

    tool: str
    limit: float
    shrunk: bool
    files: int

    @property
    def call_timeout(self) -> float:
        return PROMPT if self.shrunk else self.limit + TIMEOUT_GRACE_S + 30

    def judge(self, result: ToolResult, elapsed: float) -> None:
        name = f"{self.tool}.timeout_s"
        if self.shrunk:
            assert result.is_error and result.text.strip(), (
                f"{name} was set to {self.limit} s, so this {self.tool} must stop and answer "
                f"with an error; it answered {shown(result)}"
            )
            return
        assert elapsed <= self.limit + scaled(TIMEOUT_GRACE_S), (
            f"the call took {elapsed:.1f} s, but {name} is {self.limit} s"
        )


def timeout_case(tools: ToolClient, config: pytest.Config, tool: str) -> TimeoutCase:
    name = f"{tool}.timeout_s"
    declared = tools.limit(name)
    assert declared is not None, (
        f"{name} is not declared: a {tool} call must be stopped after a declared time, and no "
        "input makes every search slow enough to probe it. Declare it (settable with "
        "configure, so the clause runs in a second)."
    )
    if tools.configure(**{name: 0.001}):
        return TimeoutCase(tool, 0.001, True, 1500)
    if not get_session(config).settings.slow:
        pytest.skip(
            f"{NOT_RUN}slow clause: {name} = {declared.value} s cannot be shrunk with "
            "configure; run with --agenttools-slow"
        )
    return TimeoutCase(tool, float(declared.value), False, PROBE_FILES)


def result_cap(tools: ToolClient, tool: str, small: int = 10) -> tuple[int | None, int]:
    """``(cap, files to make)`` for a result-cap clause of ``tool``.

    A settable cap is shrunk to ``small``; a declared one is used as it is; an undeclared one
    (or one beyond the probe) is probed with PROBE_FILES files and the cap is None: the answer
    must still be a page.
    """
    name = f"{tool}.max_results"
    if tools.configure(**{name: small}):
        return small, small + 15
    declared = tools.limit(name)
    if declared is not None and declared.value < PROBE_FILES:
        cap = int(declared.value)
        return cap, cap + 15
    return None, PROBE_FILES


# --- secrets --------------------------------------------------------------------------------


def is_sensitive(relative: str) -> bool:
    """Whether a path relative to the workspace is, or lies inside, what GREP-SENS-01 protects
    (the spec's tables, whatever the letters' case)."""
    parts = [p.lower() for p in relative.replace(os.sep, "/").split("/") if p not in ("", ".")]
    dirs = {d.lower() for d in trees.sensitive_dirs()}
    if any(p in dirs for p in parts):
        return True
    last = parts[-1] if parts else ""
    return any(fnmatch.fnmatchcase(last, f.lower()) for f in trees.sensitive_files())


def _form_pattern(form: str) -> re.Pattern[str]:
    # a path form, not part of a longer name (`id_rsa` inside `id_rsa.pub` is not it)
    return re.compile(rf"(?<![\w.\-]){re.escape(form)}(?![\w.\-])")


def leaks(
    result: ToolResult,
    ws: Workspace,
    secrets: Iterable[str],
    *,
    allowed: Sequence[str] = (),
    echoes: Sequence[str] = (),
) -> list[str]:
    """What a result shows of the secrets: sensitive paths in its observation, secret content in
    its text, or a secret's path in its text. ``allowed`` are paths the model named itself (a
    search root) and ``echoes`` its own patterns: repeating them is not a leak."""
    cwd = str(ws.root)
    found: list[str] = []
    if result.has_observation:
        observed = result.observation
        if isinstance(observed, GrepObservation | GlobObservation):
            found += [f"observation names {p}" for p in rel(observed.paths, ws) if is_sensitive(p)]
            if isinstance(observed, GrepObservation):
                found += [
                    f"observation shows secret text {x.text!r}"
                    for x in observed.lines
                    if trees.SECRET_MARK in x.text
                ]
    text = result.text
    for echo in sorted(echoes, key=len, reverse=True):
        if echo:
            text = text.replace(echo, " ")
    if trees.SECRET_MARK in text:
        at = text.index(trees.SECRET_MARK)
        found.append(f"text shows secret content {text[max(0, at - 40) : at + 20]!r}")
    spared: set[str] = set()
    for path in allowed:
        spared |= path_forms(path, cwd)
    for secret in secrets:
        for form in path_forms(secret, cwd):
            if form in spared or ("/" not in form and not is_sensitive(form)):
                continue  # a bare name is checked only when the name itself is a secret's
            # most forms are not in the text at all: only those that are need the pattern
            if form in text and _form_pattern(form).search(text):
                found.append(f"text names {form!r}")
                break
    return found


def expect_no_leak(
    result: ToolResult,
    ws: Workspace,
    secrets: Iterable[str],
    *,
    allowed: Sequence[str] = (),
    echoes: Sequence[str] = (),
) -> None:
    found = leaks(result, ws, secrets, allowed=allowed, echoes=echoes)
    assert not found, f"secrets leaked: {found[:5]}; text {shown(result)}"


def hostile_config(scratch: Path) -> tuple[dict[str, str], Path]:
    """A ripgrep config that would change every search, and the marker its ``--pre`` makes."""
    marker = scratch / "pre-ran"
    script = scratch / "pre.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\necho {N}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    config = scratch / "ripgreprc"
    config.write_text(
        f"--no-ignore\n--follow\n--max-depth=1\n--pre={script}\n--glob=!*.py\n",
        encoding="utf-8",
    )
    return {**os.environ, "RIPGREP_CONFIG_PATH": str(config)}, marker


# --- exception texts ------------------------------------------------------------------------

#: Runtime exception classes whose name in a text means an exception escaped (Python, JS)
EXCEPTION_CLASSES = (
    "ValueError|TypeError|KeyError|IndexError|AttributeError|RuntimeError|OSError|IOError"
    "|UnicodeEncodeError|UnicodeDecodeError|UnicodeError|RecursionError|OverflowError"
    "|MemoryError|FileNotFoundError|PermissionError|IsADirectoryError|NotADirectoryError"
    "|BrokenPipeError|AssertionError|LookupError|ZeroDivisionError|RangeError|ReferenceError"
    "|SyntaxError|InternalError"
)
EXCEPTION_TEXT = re.compile(
    r"Traceback \(most recent call last\)"
    rf"|\b(?:{EXCEPTION_CLASSES}): "
    r"|\bErrno\b|\berrno\b"
    r"|surrogates not allowed|embedded null byte|Argument list too long|can't encode"
    r"|\bat [\w.<>]+ \([^)]*:\d+:\d+\)"
    r"|panicked at|goroutine \d+ \["
)


def expect_clean(result: ToolResult, what: str) -> None:
    """A success, or an error whose text is the implementation's own (GREP/GLOB-INPUT-01)."""
    if result.is_error:
        assert result.text.strip(), f"{what}: an error result with an empty text"
    found = EXCEPTION_TEXT.search(result.text)
    assert not found, (
        f"{what}: the text shows an exception or a system error ({found.group(0)!r}) instead of "
        f"saying what was wrong: {shown(result)}"
    )


# --- presentation ---------------------------------------------------------------------------


def _mask(form: str, cwd: str) -> str:
    for root in {cwd, os.path.realpath(cwd)}:
        form = form.replace(root, WORKSPACE_MASK)
    return form


def _find_any(text: str, forms: Iterable[str], start: int) -> tuple[int, int] | None:
    """The earliest (then longest) occurrence at or after ``start`` of any form."""
    best: tuple[int, int] | None = None
    for form in forms:
        if not form:
            continue
        at = text.find(form, start)
        if at >= 0 and (best is None or (at, -(at + len(form))) < (best[0], -best[1])):
            best = (at, at + len(form))
    return best


def _find_number(text: str, number: int, start: int) -> tuple[int, int] | None:
    # not part of a longer number; a letter before it is fine (`L12: text`)
    found = re.compile(rf"(?<!\d){number}(?!\d)").search(text, start)
    return (found.start(), found.end()) if found else None


def expect_carries_results(result: ToolResult, ws: Workspace, root: str | None = None) -> None:
    """GREP-PRES-01, GLOB-PRES-01: every result of the observation is in the text, in order.

    A path or a line text may be shown as it is or JSON-escaped (``shown_forms``: escaped quotes
    and backslashes, ``\\uXXXX`` for non-ASCII), as ``expect_in_order`` accepts: a tool that
    answers with a JSON document shows the same results."""
    cwd = str(ws.root)
    base = os.path.join(cwd, root) if root else None
    text = masked_text(result, cwd)
    observed = result.observation
    cursor = 0

    def need(found: tuple[int, int] | None, what: str) -> int:
        assert found is not None, (
            f"the text should show {what} (the observation has it), in the order of the "
            f"observation; nothing after position {cursor}: {shown(result)}"
        )
        return found[1]

    def forms(path: str) -> list[str]:
        return [shown for f in path_forms(path, cwd, base) for shown in shown_forms(_mask(f, cwd))]

    if isinstance(observed, GlobObservation):
        for path in observed.paths:
            cursor = need(_find_any(text, forms(path), cursor), f"path {path!r}")
        return
    assert isinstance(observed, GrepObservation)
    for path in observed.files:
        cursor = need(_find_any(text, forms(path), cursor), f"file {path!r}")
    for item in observed.counts:
        cursor = need(_find_any(text, forms(item.path), cursor), f"file {item.path!r}")
        cursor = need(_find_number(text, item.count, cursor), f"count {item.count} of {item.path}")
    previous = None
    for line in observed.lines:
        if line.path != previous:
            cursor = need(_find_any(text, forms(line.path), cursor), f"file {line.path!r}")
            previous = line.path
        number_end = need(_find_number(text, line.line, cursor), f"line number {line.line}")
        piece = line.text.strip()[:200]
        text_end = number_end
        if piece:
            text_end = need(_find_any(text, shown_forms(piece), cursor), f"line text {piece!r}")
        cursor = max(number_end, text_end)


# --- trees and patterns for the properties --------------------------------------------------

ORDINARY_DIRS = ["src", "lib", "Keys", "config", "a", "docs"]
ORDINARY_FILES = [
    "a.py",
    "b.txt",
    "notes.md",
    ".hidden",
    "config",
    "id_rsa.pub",
    ".envrc",
    ".env-example",
    "environment.py",
    "key.txt",
    "pem",
    "server.pem.txt",
    "credentials",
]


def _sensitive_names() -> list[str]:
    names = []
    for index, pattern in enumerate(trees.sensitive_files()):
        name = pattern.replace(".*", ".local").replace("*", f"s{index}")
        names += [name, name.upper()]
    return names


@st.composite
def search_trees(draw: st.DrawFn, max_files: int = 10) -> dict[str, str]:
    """Relative path -> content (always holding the needle): sensitive names of every table, in
    either case, mixed with ordinary near-misses (``id_rsa.pub``, ``.envrc``) at several depths,
    in sensitive, excluded and ordinary directories."""
    upper = [d.upper() for d in trees.sensitive_dirs()]
    dirs = st.sampled_from(
        [*ORDINARY_DIRS, *trees.sensitive_dirs(), *upper, *trees.excluded_dirs()]
    )
    names = st.sampled_from(ORDINARY_FILES + _sensitive_names())
    files: dict[str, str] = {}
    for _ in range(draw(st.integers(1, max_files))):
        parts = draw(st.lists(dirs, max_size=3))
        files["/".join([*parts, draw(names)])] = f"{N} {trees.SECRET_MARK}x\n"
    # the contents of ordinary files must not look secret: only sensitive ones carry the mark
    files = {p: (t if is_sensitive(p) else f"{N}\n") for p, t in files.items()}
    # a file cannot also be a directory: drop paths that would need one as a parent
    return {
        path: text
        for path, text in files.items()
        if not any(other.startswith(path + "/") for other in files)
    }


def _user_globs() -> list[str]:
    made = ["*", "**/*", "**", ".*", "**/.env", ".env", ".env*", "*.PEM", "**/id_*", "id_rsa"]
    made += ["*.{pem,py,key}", "{.env,a.py}", "**/config", "src/**", "!*.py", "[.]env", "*.[pP]*"]
    for name in trees.sensitive_dirs():
        made += [f"{name}/*", f"**/{name}/**", f"{name.upper()}/**"]
    for pattern in trees.sensitive_files():
        made += [pattern, f"**/{pattern}", pattern.upper()]
    return list(dict.fromkeys(made))


user_globs = st.sampled_from(_user_globs())
#: Characters for literal searches: regex syntax, separators, spaces and non-ASCII, no line breaks.
SAFE_TEXT = st.sampled_from(list("ab.*+?()[]{}|\\^$:- \té中"))


def needle_lines(text: str, needle: str) -> Iterable[tuple[int, str]]:
    """What a plain scan finds: (line number, line) for lines containing ``needle``."""
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            yield number, line


def letter_names(count: int, suffix: str = ".txt") -> list[str]:
    """``count`` distinct file names made of letters only (no digit a number check could see)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: list[str] = []
    for size in itertools.count(2):
        for combo in itertools.product(letters, repeat=size):
            out.append("".join(combo) + suffix)
            if len(out) == count:
                return out
    raise AssertionError("unreachable")
