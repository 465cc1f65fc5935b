"""The reference grep end to end: real files, real ripgrep, and the reference's own policy.

What conformance leaves to each implementation is pinned here for the reference: the whole
observation of every mode, the texts that page, cut or refuse, the line and character budget of
context lines, and how ``run`` drives its operations port (``search_ops.GrepOps``). A port is
swapped through ``ReferenceTools(ops=...)`` where a seam must be reached that the default port
cannot show: an engine that fails in a way rg 14 never does (a stand-in executable), or a call
cancelled at one exact moment after rg finished. Each text below was read when it was pinned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.broken import grep_reads_rg_config, grep_skips_named_big_file
from pytest_agenttools.implementations.broken.grep_context_range import WalksTheRange
from pytest_agenttools.implementations.reference import create, grep, ripgrep, search_input
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from tests.implementations.reference.test_write import call, text


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """f.txt ('alpha' on line 1) and sub/g.py ('alpha' on line 1)."""
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g.py").write_text("print('alpha')\n")
    return tmp_path


def grep_in(cwd: Path, tools: ReferenceTools | None = None, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = call("grep", cwd, tools, **arguments)
    assert not result["isError"], result
    return result


def observed(result: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = result["details"]["observation"]
    return found


# --- the observation, whole, in every mode ----------------------------------------------------


def test_the_observation_of_each_mode_holds_its_own_entries_only(tree: Path) -> None:
    files = grep_in(tree, pattern="beta")
    assert observed(files) == {
        "mode": "files_with_matches",
        "files": ["f.txt"],
        "lines": [],
        "counts": [],
        "truncated": False,
        "next_offset": None,
        "total": 1,
    }
    content = grep_in(tree, pattern="beta", output_mode="content")
    assert observed(content) == {
        "mode": "content",
        "files": [],
        "lines": [{"path": "f.txt", "line": 2, "text": "beta", "match": True, "cut": False}],
        "counts": [],
        "truncated": False,
        "next_offset": None,
        "total": 1,
    }
    count = grep_in(tree, pattern="beta", output_mode="count")
    assert observed(count) == {
        "mode": "count",
        "files": [],
        "lines": [],
        "counts": [{"path": "f.txt", "count": 1}],
        "truncated": False,
        "next_offset": None,
        "total": 1,
    }


def test_a_sensitive_root_observes_nothing(tree: Path) -> None:
    (tree / ".ssh").mkdir()
    (tree / ".ssh" / "config").write_text("alpha\n")
    result = grep_in(tree, pattern="alpha", path=".ssh", output_mode="count")
    assert observed(result) == {
        "mode": "count",
        "files": [],
        "lines": [],
        "counts": [],
        "truncated": False,
        "next_offset": None,
        "total": 0,
    }


# --- how run drives its operations port ---------------------------------------------------------


def test_the_installed_port_decides_rgs_flags_and_environment(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port that drops ``--no-config`` and hands rg the call's environment: rg reads the
    config the call names, so this search ignores case (the default port would not)."""
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    config = tree / "rgrc"
    config.write_text("--ignore-case\n")
    result = grep_reads_rg_config.create().call(
        "grep", {"pattern": "ALPHA"}, str(tree), env={"RIPGREP_CONFIG_PATH": str(config)}
    )
    assert sorted(observed(result)["files"]) == ["f.txt", "sub/g.py"]
    assert (
        create().call(
            "grep", {"pattern": "ALPHA"}, str(tree), env={"RIPGREP_CONFIG_PATH": str(config)}
        )["details"]["observation"]["files"]
        == []
    )


def test_run_without_an_installed_port_uses_its_own(tree: Path) -> None:
    ctx = CallContext(
        cwd=str(tree), limits=Limits(extra_defaults=grep.LIMITS), queue=MutationQueue()
    )
    result = grep.run({"pattern": "beta"}, ctx)
    assert text(result) == "f.txt"


def test_a_named_file_the_port_skips_answers_no_matches(tree: Path) -> None:
    """The branch a port reaches by declining a named file: an empty, well-formed answer."""
    tools = grep_skips_named_big_file.create()
    tools.configure({"grep.max_filesize": 4})
    result = grep_in(tree, tools, pattern="alpha", path="f.txt", output_mode="count")
    root = str(tree / "f.txt")
    assert text(result) == f"No matches found for pattern 'alpha' in {root}."
    assert result["details"] == {
        "mode": "count",
        "root": root,
        "offset": 0,
        "shown": 0,
        "total": 0,
        "has_more": False,
        "observation": {
            "mode": "count",
            "files": [],
            "lines": [],
            "counts": [],
            "truncated": False,
            "next_offset": None,
            "total": 0,
        },
    }


# --- default exclusions, judged below the call's cwd -------------------------------------------


def test_a_root_inside_an_excluded_directory_skips_nothing(tmp_path: Path) -> None:
    (tmp_path / "node_modules" / "pkg" / "dist").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "dist" / "x.js").write_text("alpha\n")
    result = grep_in(tmp_path, pattern="alpha", path="node_modules/pkg")
    assert observed(result)["files"] == ["node_modules/pkg/dist/x.js"]


def test_a_project_under_a_build_directory_keeps_its_exclusions(tmp_path: Path) -> None:
    project = tmp_path / "build" / "proj"
    (project / "dist").mkdir(parents=True)
    (project / "dist" / "x.js").write_text("alpha\n")
    (project / "a.txt").write_text("alpha\n")
    assert observed(grep_in(project, pattern="alpha"))["files"] == ["a.txt"]


# --- arguments refused before rg runs ----------------------------------------------------------

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "pattern-too-long",
        {"pattern": "a" * (search_input.MAX_PATTERN_CHARS + 1)},
        "grep: pattern is 1,048,577 characters long; patterns are at most 1,048,576. Send a "
        "shorter pattern.",
    ),
    (
        "pattern-carriage-return",
        {"pattern": "a\rb"},
        "grep: pattern contains a line break; grep matches within single lines. Search for one "
        "line of the text (or a part of it) at a time.",
    ),
    (
        "glob-too-long",
        {"pattern": "alpha", "glob": "a" * (search_input.MAX_GLOB_CHARS + 1)},
        "grep: glob is 16,385 characters long; glob patterns are at most 16,384. Send a "
        "shorter glob.",
    ),
]


@pytest.mark.parametrize(
    ("arguments", "said"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_an_argument_that_cannot_reach_rg_is_refused(
    tree: Path, arguments: dict[str, Any], said: str
) -> None:
    result = call("grep", tree, **arguments)
    assert result["details"] == {"error": "invalid_argument"}, result
    assert text(result) == said


def test_as_many_globs_as_allowed_are_accepted(tree: Path) -> None:
    globs = ["*.py"] * search_input.MAX_GLOBS
    assert observed(grep_in(tree, pattern="alpha", glob=globs))["files"] == ["sub/g.py"]


def test_a_glob_ending_in_a_slash_selects_the_files_below_that_directory(tree: Path) -> None:
    (tree / "top.py").write_text("alpha\n")
    assert observed(grep_in(tree, pattern="alpha", glob="sub/"))["files"] == ["sub/g.py"]


def test_globs_do_not_filter_a_file_named_by_path(tree: Path) -> None:
    result = grep_in(tree, pattern="alpha", path="f.txt", glob="sub/*.py", output_mode="content")
    assert text(result) == "f.txt:1:alpha"


@pytest.fixture
def two_directories(tmp_path: Path) -> Path:
    """sub/s00.py..sub/s09.py, which the glob 'sub/*.py' selects, among .py files it does not
    select made before and after them (t*.py, other/, sub/deep/); each holds one 'alpha' line.
    rg prints files in no fixed order, so some that are not selected come before selected ones.
    """
    for i in range(10):
        (tmp_path / f"t{i:02}.py").write_text(f"alpha t{i}\n")
    for directory, prefix in (("sub", "s"), ("other", "o"), ("sub/deep", "d")):
        (tmp_path / directory).mkdir()
        for i in range(10):
            (tmp_path / directory / f"{prefix}{i:02}.py").write_text(f"alpha {prefix}{i}\n")
    return tmp_path


def test_count_keeps_only_the_paths_a_glob_with_a_slash_selects(two_directories: Path) -> None:
    result = grep_in(two_directories, pattern="alpha", glob="sub/*.py", output_mode="count")
    assert observed(result)["counts"] == [
        {"path": f"sub/s{i:02}.py", "count": 1} for i in range(10)
    ]
    assert result["details"]["total_matches"] == 10


def test_content_keeps_only_the_paths_a_glob_with_a_slash_selects(two_directories: Path) -> None:
    result = grep_in(two_directories, pattern="alpha", glob="sub/*.py", output_mode="content")
    assert [line["path"] for line in observed(result)["lines"]] == [
        f"sub/s{i:02}.py" for i in range(10)
    ]


def test_count_counts_the_matches_of_a_name_holding_a_line_break(tmp_path: Path) -> None:
    """rg's count records are split at line breaks: the part of a name before one is no count."""
    (tmp_path / "7\nz.txt").write_text("alpha\n")
    result = grep_in(tmp_path, pattern="alpha", output_mode="count")
    assert result["details"]["total_matches"] == 1
    assert result["details"]["total"] == 1


# --- texts: no matches, cut lines, pages, binary files -----------------------------------------


@pytest.mark.parametrize(
    ("length", "shown"),
    [(198, "'" + "q" * 198 + "'"), (199, "'" + "q" * 199 + "... (199 characters)")],
    ids=["whole", "cut"],
)
def test_the_pattern_is_quoted_up_to_200_characters(tree: Path, length: int, shown: str) -> None:
    result = grep_in(tree, pattern="q" * length)
    assert text(result) == f"No matches found for pattern {shown} in {tree}."


def test_a_line_of_exactly_the_limit_is_whole_and_notes_follow_each_other(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha12345\nalpha123456\nalpha\n")
    tools = create({"grep.max_line_chars": 10})
    result = grep_in(tmp_path, tools, pattern="alpha", output_mode="content", limit=2)
    assert text(result) == (
        "f.txt:1:alpha12345\n"
        "f.txt:2:alpha12345... (line truncated)\n\n"
        "[1 line(s) longer than 10 characters were cut; read the file to see them whole.]\n"
        "[Showing matches 1-2 of 3. Use offset=2 to continue.]"
    )
    assert result["details"]["line_truncations"] == 1


def test_count_pages_in_files(tree: Path) -> None:
    result = grep_in(tree, pattern="alpha", output_mode="count", limit=1)
    assert text(result) == (
        "f.txt:1\n\n[2 match(es) in 2 file(s).]\n\n"
        "[Showing files 1-1 of 2. Use offset=1 to continue.]"
    )


def test_a_line_that_is_not_utf8_is_shown_with_replacement_characters(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"alpha \xff\xfe\n")
    result = grep_in(tmp_path, pattern="alpha", output_mode="content")
    assert text(result) == "f.txt:1:alpha \ufffd\ufffd"


def test_a_binary_file_named_by_path_is_reported_not_shown(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"alpha\x00beta\n")
    result = grep_in(tmp_path, pattern="alpha", path="blob.bin", output_mode="content")
    assert text(result) == (
        "[blob.bin is a binary file: it matches, but its lines are not shown as text.]"
    )
    assert result["details"]["binary_matches"] == ["blob.bin"]
    assert observed(result)["lines"] == []


def test_capped_output_is_flagged_in_the_details(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"f{i:02}.txt").write_text("alpha\n")
    tools = create({"grep.max_output_bytes": 30})
    result = grep_in(tmp_path, tools, pattern="alpha")
    assert result["details"]["output_capped"] is True
    assert observed(result)["truncated"] is True
    assert text(result).endswith(
        "[rg's output reached its size cap, so these results are incomplete and the total is "
        "a lower bound. Narrow the search with path, glob or a more specific pattern.]"
    )


# --- the file-size cap on a named file ----------------------------------------------------------


def test_a_named_file_of_exactly_the_cap_is_searched(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha2345\n")  # 10 bytes
    tools = create({"grep.max_filesize": 10})
    assert text(grep_in(tmp_path, tools, pattern="alpha", path="f.txt")) == "f.txt"


def test_a_named_file_over_the_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha23456\n")  # 11 bytes
    tools = create({"grep.max_filesize": 10})
    result = call("grep", tmp_path, tools, pattern="alpha", path="f.txt")
    assert result["details"] == {"error": "too_large", "size": 11, "max_filesize": 10}
    assert text(result) == (
        f"{tmp_path / 'f.txt'} is 11 bytes, larger than the 10 bytes grep searches in one file "
        "(grep.max_filesize). Read it in pages with read (offset and limit), or search a "
        "smaller file."
    )


# --- context lines and their budget -------------------------------------------------------------


def test_context_after_a_match_on_the_first_line(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha\nb\nc\nd\n")
    result = grep_in(tmp_path, pattern="alpha", output_mode="content", context=2)
    assert text(result) == "f.txt:1:alpha\nf.txt-2-b\nf.txt-3-c"


def test_context_between_adjacent_matches_reaches_both_ways(tmp_path: Path) -> None:
    """A window whose neighbour is already shown still reaches the line on its other side."""
    (tmp_path / "f.txt").write_text("x\nalpha\nalpha\ny\n")
    result = grep_in(tmp_path, pattern="alpha", output_mode="content", context=1)
    assert text(result) == "f.txt-1-x\nf.txt:2:alpha\nf.txt:3:alpha\nf.txt-4-y"


@pytest.mark.parametrize(
    ("width", "before", "after"),
    [(255, 512, 512), (201, 649, 648)],
    ids=["chars-exactly-spent", "odd-count-before-first"],
)
def test_context_lines_stop_at_the_character_budget(
    tmp_path: Path, width: int, before: int, after: int
) -> None:
    """Each context line costs its characters and one; the budget is spent exactly, one step
    further from the match at a time, the line before the match first."""
    filler = [chr(ord("b") + i % 20) * width for i in range(700)]
    (tmp_path / "f.txt").write_text("\n".join([*filler, "alpha", *filler]) + "\n")
    result = grep_in(tmp_path, pattern="alpha", output_mode="content", context=10**6)
    lines = [x["line"] for x in observed(result)["lines"] if not x["match"]]
    assert (sum(n < 701 for n in lines), sum(n > 701 for n in lines)) == (before, after)
    assert (before + after) * (width + 1) <= grep.MAX_CONTEXT_CHARS
    assert result["details"]["context_cut"] is True


# --- the engine failing: a stand-in for rg ---------------------------------------------------


class StandInEngine(GrepOps):
    """A port whose rg is another executable: an engine failure rg 14 does not produce."""

    def __init__(self, exe: str) -> None:
        self.exe = exe

    def rg(self, services: dict[str, object]) -> str:
        return self.exe


@pytest.fixture
def engine(tmp_path: Path) -> Callable[[str, int], ReferenceTools]:
    """A reference whose rg writes ``stderr`` and exits with ``status`` (or dies of a signal,
    for a negative status)."""

    def make(stderr: str, status: int) -> ReferenceTools:
        (tmp_path / "engine.err").write_text(stderr)
        exe = tmp_path / "engine"
        end = f"kill -{-status} $$" if status < 0 else f"exit {status}"
        exe.write_text(f'#!/bin/sh\ncat "{tmp_path / "engine.err"}" >&2\n{end}\n')
        exe.chmod(0o755)
        return ReferenceTools(ops={"grep": StandInEngine(str(exe))})

    return make


def test_an_engine_that_fails_says_what_it_wrote(
    tree: Path, engine: Callable[[str, int], ReferenceTools]
) -> None:
    message = "the engine broke: " + "x" * 600
    result = call("grep", tree, engine(message + "\n", 2), pattern="alpha")
    assert result["details"] == {"error": "rg_failed"}
    assert text(result) == f"rg failed: {message[:500]}"


def test_an_engine_killed_by_a_signal_ran_out_of_room(
    tree: Path, engine: Callable[[str, int], ReferenceTools]
) -> None:
    result = call("grep", tree, engine("", -9), pattern="alpha")
    assert result["details"] == {"error": "invalid_regex"}
    assert text(result).startswith("The pattern is too complex for the search engine")


@pytest.mark.parametrize(
    ("stderr", "detail"),
    [
        (
            "rg: regex parse error:\n    a(b\n     ^\nerror:first reason\nerror: second reason\n",
            "first reason; second reason",
        ),
        (
            "regex could not be compiled:\n" + "  word" * 100 + "\n",
            ("regex could not be compiled: " + " ".join(["word"] * 100))[:300],
        ),
    ],
    ids=["error-lines", "no-error-lines"],
)
def test_a_regex_error_names_the_engines_reasons(
    tree: Path, engine: Callable[[str, int], ReferenceTools], stderr: str, detail: str
) -> None:
    result = call("grep", tree, engine(stderr, 2), pattern="a(b")
    assert result["details"] == {"error": "invalid_regex"}
    assert text(result) == (
        f"Invalid regular expression 'a(b': {detail}. Escape the special characters (for "
        "example \\( \\[ \\. \\*), or pass literal=true to search for the text exactly as "
        "written."
    )


def test_a_pattern_too_large_to_compile_is_too_complex(tree: Path) -> None:
    result = call("grep", tree, pattern=r"(?:\w{50}){500}")
    assert result["details"] == {"error": "invalid_regex"}
    assert text(result) == (
        "The pattern is too complex for the search engine (it ran out of room compiling it). "
        "Use a simpler pattern, fewer repetitions, or literal=true to search for the text as "
        "written."
    )


def test_a_search_past_its_deadline_times_out(tree: Path) -> None:
    tools = create({"grep.timeout_s": 1e-6})
    result = call("grep", tree, tools, pattern="alpha")
    assert result["details"] == {"error": "timeout"}
    assert text(result) == (
        "grep timed out after 1e-06 seconds and rg was stopped. Narrow the search: a smaller "
        "path, a glob such as '*.py', or a more specific pattern."
    )


# --- a cancel that arrives after rg finished ----------------------------------------------------


class CancelledAfterRg(GrepOps):
    """A port under which the call is cancelled once rg's output is in (``after`` = 0), or
    once ``after`` of its records were looked at."""

    def __init__(self, cancel: threading.Event, after: int) -> None:
        self.cancel = cancel
        self.after = after

    def run(self, argv: Sequence[str], cwd: str, **kwargs: Any) -> ripgrep.RgRun:
        found = super().run(argv, cwd, **kwargs)
        if self.after == 0:
            self.cancel.set()
        return found

    def path_filter(self, user_globs: Sequence[str]) -> Callable[[bytes], bool] | None:
        seen = iter(range(1, 1 << 30))

        def keep(name: bytes) -> bool:
            if next(seen) == self.after:
                self.cancel.set()
            return True

        return keep


@pytest.mark.parametrize(("after", "lines"), [(0, 1), (1, 5000)], ids=["at-once", "mid-way"])
def test_a_cancel_while_results_are_sorted_aborts(tmp_path: Path, after: int, lines: int) -> None:
    """Looked at every CANCEL_EVERY records, the first included."""
    (tmp_path / "f.txt").write_text("alpha\n" * lines)
    cancel = threading.Event()
    tools = ReferenceTools(ops={"grep": CancelledAfterRg(cancel, after)})
    result = tools.call(
        "grep", {"pattern": "alpha", "output_mode": "content"}, str(tmp_path), cancel=cancel
    )
    assert result["details"] == {"error": "aborted"}
    assert text(result) == "grep was cancelled while it sorted the results."


class CancelledWhileContextIsFound(WalksTheRange):
    """A port that walks each context window and stops when the call is cancelled; the cancel
    arrives as the first window is looked up."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def window(
        self,
        numbers: Sequence[int],
        number: int,
        context: int,
        cancel: threading.Event | None = None,
    ) -> Sequence[int]:
        self.cancel.set()
        return super().window(numbers, number, context, cancel)


def test_the_context_window_is_given_the_calls_cancel(tree: Path) -> None:
    cancel = threading.Event()
    tools = ReferenceTools(ops={"grep": CancelledWhileContextIsFound(cancel)})
    arguments = {"pattern": "alpha", "output_mode": "content", "context": 2, "path": "f.txt"}
    result = tools.call("grep", arguments, str(tree), cancel=cancel)
    assert result["details"] == {"error": "aborted"}
    assert text(result) == "grep was cancelled."


# --- names rg's output cannot carry as they are ----------------------------------------------


@pytest.fixture
def odd_names(tmp_path: Path) -> Path:
    """A file whose name holds a line break and ': ', and a binary file whose name holds ': '."""
    (tmp_path / "7\nz.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("alpha\n")
    (tmp_path / "a: b.bin").write_bytes(b"al\0pha\n")
    return tmp_path


def test_a_name_with_a_line_break_is_one_result_in_every_mode(odd_names: Path) -> None:
    """Split at each line break of rg's output, the file ``7\\nz.txt`` was reported as
    ``z.txt``; the observation names it exactly, and the text keeps it on one line."""
    content = grep_in(odd_names, pattern="alpha", output_mode="content", glob="*.txt")
    assert [(line["path"], line["line"]) for line in observed(content)["lines"]] == [
        ("7\nz.txt", 1),
        ("b.txt", 1),
    ]
    assert text(content) == "7\\nz.txt:1:alpha\nb.txt:1:alpha"
    counted = grep_in(odd_names, pattern="alpha", output_mode="count", glob="*.txt")
    assert observed(counted)["counts"] == [
        {"path": "7\nz.txt", "count": 1},
        {"path": "b.txt", "count": 1},
    ]
    assert text(counted).splitlines()[:2] == ["7\\nz.txt:1", "b.txt:1"]
    files = grep_in(odd_names, pattern="alpha", glob="*.txt")
    assert sorted(observed(files)["files"]) == ["7\nz.txt", "b.txt"]  # newest first
    assert sorted(text(files).split("\n")) == ["7\\nz.txt", "b.txt"]
    listed = call("glob", odd_names, None, pattern="*.txt")
    assert sorted(listed["details"]["observation"]["paths"]) == ["7\nz.txt", "b.txt"]
    assert sorted(text(listed).split("\n")) == ["7\\nz.txt", "b.txt"]


def test_a_binary_file_named_with_a_colon_and_space_keeps_its_whole_name(odd_names: Path) -> None:
    found = grep_in(odd_names, pattern="pha", path="a: b.bin", output_mode="content")
    assert found["details"]["binary_matches"] == ["a: b.bin"]
    assert text(found) == (
        "[a: b.bin is a binary file: it matches, but its lines are not shown as text.]"
    )


def test_a_name_with_a_carriage_return_stays_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "c\rd.txt").write_text("alpha\n")
    found = grep_in(tmp_path, pattern="alpha", output_mode="content")
    assert observed(found)["lines"][0]["path"] == "c\rd.txt"
    assert text(found) == "c\\rd.txt:1:alpha"
    listed = call("glob", tmp_path, None, pattern="*.txt")
    assert listed["details"]["observation"]["paths"] == ["c\rd.txt"]
    assert text(listed) == "c\\rd.txt"


def test_a_directory_search_that_skips_a_big_file_says_so(tmp_path: Path) -> None:
    """GREP-SIZE-01 skips files over grep.max_filesize; "No matches" alone would read as "not in
    any file", so the result names what was skipped."""
    (tmp_path / "small.txt").write_text("nothing\n")
    (tmp_path / "big.log").write_bytes(b"x" * 5000 + b"\nneedle\n")
    tools = ReferenceTools({"grep.max_filesize": 4096})
    result = grep_in(tmp_path, tools, pattern="needle")
    assert "No matches found" in text(result)
    assert "1 file(s) larger than 4096 bytes" in text(result) and "big.log" in text(result)
    assert "grep.max_filesize" in text(result)
    plain = grep_in(tmp_path, tools, pattern="absent", glob="*.txt")
    assert "larger than" not in text(plain), "a file the glob excludes is not reported"
    named = grep_in(tmp_path, tools, pattern="needle", path="small.txt")
    assert "larger than" not in text(named)
