"""Every entry of peers/agno/expectations.toml, shown by calling agno directly.

Each ``Deviation`` names a behaviour of agno 3.1.10's ``CodingTools`` and the expectation entries
it accounts for; its demo calls agno's own functions the way agno's model layer calls them for a
model (``get_function_call`` on the JSON arguments, then ``FunctionCall.execute()`` on the
functions an ``Agent`` prepares; no adapter in between) and asserts that behaviour. A test checks
that the entries and the deviations cover each other exactly, so no entry stays in the file
unshown. The demos need agno (``pip install -r peers/agno/requirements.txt``); they are skipped
without it, unless AGENTTOOLS_REQUIRE_AGNO=1 (set in CI).
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.peers.demos import assert_each_entry_shown_once
from tests.support import REPO

ADAPTER = REPO / "peers" / "agno"
REQUIRED = os.environ.get("AGENTTOOLS_REQUIRE_AGNO") == "1"


def need_agno() -> None:
    if importlib.util.find_spec("agno") is None:
        if REQUIRED:
            pytest.fail("agno is not installed: pip install -r peers/agno/requirements.txt")
        pytest.skip("agno is not installed (pip install -r peers/agno/requirements.txt)")


@dataclass(frozen=True)
class Answer:
    """What agno's model layer puts in the tool message: the text, and whether it is an error
    (``tool_call_error``: a failed ``FunctionCall``)."""

    error: bool
    text: str


def prepare(cwd: Path, function: str, /, **args: Any) -> Any:
    """A model's tool call as agno's model layer turns it into a ``FunctionCall``: the
    functions an ``Agent`` prepares for a run, and ``get_function_call`` on the JSON arguments."""
    from agno.tools.coding import CodingTools
    from agno.utils.functions import get_function_call

    toolkit = CodingTools(base_dir=cwd, restrict_to_base_dir=False, all=True)
    functions = {}
    for name, found in toolkit.get_functions().items():
        prepared = found._per_run_copy()
        prepared.process_entrypoint(strict=False)
        functions[name] = prepared
    function_call = get_function_call(function, json.dumps(args), "demo", functions)
    assert function_call is not None and function_call.error is None, function_call
    return function_call


def execute(function_call: Any) -> Answer:
    """What the model layer puts in the tool message: the result, or the call's error."""
    outcome = function_call.execute()
    if outcome.status != "success":
        return Answer(True, function_call.error or "")
    return Answer(False, str(outcome.result))


def call(cwd: Path, function: str, /, **args: Any) -> Answer:
    """One CodingTools call as agno's model layer makes it for a model's tool call."""
    return execute(prepare(cwd, function, **args))


def ok(answer: Answer) -> Answer:
    """A success for agno's framework (the model is not told of an error)."""
    assert not answer.error, answer
    return answer


# --- refusals are return values ------------------------------------------------------------------


def refusals_are_successes(ws: Path) -> None:
    (ws / "f.txt").write_text("one\ndup\ndup\ndup\n")
    (ws / "d").mkdir()
    (ws / "plain").write_text("x\n")
    edits = {
        "Error: File not found: nope.txt": {"file_path": "nope.txt", "old_text": "a"},
        "Error: Not a file: d": {"file_path": "d", "old_text": "a"},
        "Error: old_text cannot be empty": {"file_path": "f.txt", "old_text": ""},
        "Error: old_text not found in f.txt. ": {"file_path": "f.txt", "old_text": "three"},
        "Error: old_text matches 3 locations in f.txt. ": {"file_path": "f.txt", "old_text": "dup"},
    }
    for said, args in edits.items():
        assert ok(call(ws, "edit_file", new_text="b", **args)).text.startswith(said)
    writes = {
        "Error writing file: [Errno 21] Is a directory": "d",
        "Error writing file: [Errno 20] Not a directory": "plain/child.txt",
        "Error: Path 'a\x00b.txt' is outside the allowed base directory": "a\x00b.txt",
        "Error: Path 'a\ud800.txt' is outside the allowed base directory": "a\ud800.txt",
    }
    for said, path in writes.items():
        assert ok(call(ws, "write_file", file_path=path, contents="y")).text.startswith(said)
    empty = ok(call(ws, "write_file", file_path="", contents="y")).text
    assert empty.startswith("Error writing file: [Errno 21] Is a directory"), empty
    surrogate = ok(call(ws, "write_file", file_path="s.txt", contents="bad \ud800\n")).text
    assert surrogate.startswith("Error writing file: 'utf-8' codec can't encode"), surrogate
    assert (ws / "f.txt").read_text() == "one\ndup\ndup\ndup\n"


# --- edit ----------------------------------------------------------------------------------------


def no_op_edit(ws: Path) -> None:
    (ws / "f.txt").write_text("abc\n")
    answer = ok(call(ws, "edit_file", file_path="f.txt", old_text="abc", new_text="abc"))
    assert answer.text == "No changes needed: old_text and new_text are identical"


def binary_edited(ws: Path) -> None:
    (ws / "b.bin").write_bytes(b"head\x00\x01 text tail\n")
    ok(call(ws, "edit_file", file_path="b.bin", old_text="text", new_text="TEXT"))
    assert (ws / "b.bin").read_bytes() == b"head\x00\x01 TEXT tail\n"


def utf8_only_edit(ws: Path) -> None:
    (ws / "l.txt").write_bytes(b"caf\xe9\nline two\n")
    (ws / "w.txt").write_bytes("\ufeffline two\n".encode("utf-16-le"))
    for name, byte in (("l.txt", "0xe9"), ("w.txt", "0xff")):
        before = (ws / name).read_bytes()
        answer = ok(call(ws, "edit_file", file_path=name, old_text="line two", new_text="2"))
        assert answer.text.startswith("Error editing file: 'utf-8' codec can't decode byte " + byte)
        assert (ws / name).read_bytes() == before


def prefixes_not_stripped(ws: Path) -> None:
    (ws / "f.txt").write_text("one\ntwo\nthree\n")
    shown = ok(call(ws, "read_file", file_path="f.txt")).text
    rows = shown.split("\n")[1:3]
    assert rows == ["   2 | two", "   3 | three"], shown
    answer = ok(
        call(ws, "edit_file", file_path="f.txt", old_text="\n".join(rows), new_text="TWO\nTHREE")
    )
    assert answer.text.startswith("Error: old_text not found in f.txt")
    assert (ws / "f.txt").read_text() == "one\ntwo\nthree\n"


def endings_become_lf(ws: Path) -> None:
    cases = {
        "crlf.txt": (b"a\r\nb\r\nc\r\n", b"a\nB\nc\n"),
        "bom.txt": (b"\xef\xbb\xbfa\r\nb\r\n", b"\xef\xbb\xbfa\nB\n"),
        "cr.txt": (b"1\r2\rb\r", b"1\n2\nB\n"),
        "mixed.txt": (b"x\r\nb\ny\r", b"x\nB\ny\n"),
    }
    for name, (before, after) in cases.items():
        (ws / name).write_bytes(before)
        ok(call(ws, "edit_file", file_path=name, old_text="b", new_text="B"))
        assert (ws / name).read_bytes() == after, name
    (ws / "old.txt").write_bytes(b"a\r\nb\r\n")
    answer = ok(call(ws, "edit_file", file_path="old.txt", old_text="a\r\nb", new_text="B"))
    assert answer.text.startswith("Error: old_text not found in old.txt"), "no CR is left to match"


def in_place_writes(ws: Path) -> None:
    """write_file and edit_file write the file itself (Path.write_text): same inode, another
    name of it sees the new text, and nothing serialises two calls."""
    target = ws / "f.txt"
    target.write_text("old\n")
    os.link(target, ws / "hard.txt")
    inode = target.stat().st_ino
    ok(call(ws, "write_file", file_path="f.txt", contents="new\n"))
    assert target.stat().st_ino == inode, "written in place, not replaced"
    assert (ws / "hard.txt").read_text() == "new\n"
    ok(call(ws, "edit_file", file_path="f.txt", old_text="new", new_text="edited"))
    assert target.stat().st_ino == inode and (ws / "hard.txt").read_text() == "edited\n"


def racing_edits_lost(ws: Path) -> None:
    """Racing edits of different lines of one file, started together: each reads the whole
    file, replaces and writes it back, with nothing serialising them, so one overwrites another's
    change."""
    slots = [f"slot{n:02d}" for n in range(8)]
    for _ in range(10):  # a round where every edit happens to run alone proves nothing
        (ws / "f.txt").write_text("".join(f"{slot}\n{'x' * 500_000}\n" for slot in slots))
        calls = [
            prepare(ws, "edit_file", file_path="f.txt", old_text=slot, new_text="done")
            for slot in slots
        ]
        start = threading.Barrier(len(calls))

        def run(function_call: Any, start: threading.Barrier = start) -> Answer:
            start.wait()
            return execute(function_call)

        with ThreadPoolExecutor(len(calls)) as pool:
            answers = list(pool.map(run, calls))
        assert all(not answer.error for answer in answers)
        if any(slot in (ws / "f.txt").read_text() for slot in slots):
            return
    pytest.fail("8 racing edits never lost one in 10 rounds")


def written_as_given(ws: Path) -> None:
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfuno\r\ndos\r\n")
    (ws / "wide.txt").write_bytes("\ufeffalt\n".encode("utf-16-le"))
    ok(call(ws, "write_file", file_path="bom.txt", contents="uno\ndos\n"))
    ok(call(ws, "write_file", file_path="wide.txt", contents="neu é\n"))
    assert (ws / "bom.txt").read_bytes() == b"uno\ndos\n"
    assert (ws / "wide.txt").read_bytes() == "neu é\n".encode()


# --- glob (find) ---------------------------------------------------------------------------------


def glob_tree(ws: Path) -> None:
    for name in ("a.py", ".env", "src/b.py", "src/deep/c.py", ".config/t.toml", ".ssh/id_rsa"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x\n")


def find_refusals_are_successes(ws: Path) -> None:
    glob_tree(ws)
    (ws / "loop_a").symlink_to("loop_b")
    (ws / "loop_b").symlink_to("loop_a")
    said = {
        "Error: Pattern cannot be empty": {"pattern": ""},
        "Error: Path not found: nope/deeper": {"pattern": "*", "path": "nope/deeper"},
        "Error: Not a directory: a.py": {"pattern": "*", "path": "a.py"},
        "Error finding files: Symlink loop from": {"pattern": "*", "path": "loop_a"},
    }
    for text, args in said.items():
        assert ok(call(ws, "find", **args)).text.startswith(text), args


def limit_zero_lists_one(ws: Path) -> None:
    glob_tree(ws)
    rows = ok(call(ws, "find", pattern="*.py", limit=0)).text.split("\n")
    assert rows == ["a.py", "[Results limited to 0 entries]"]


def directories_match(ws: Path) -> None:
    glob_tree(ws)
    everything = ok(call(ws, "find", pattern="**")).text.split("\n")
    assert everything == ["./", ".config/", ".ssh/", "src/", "src/deep/"], "directories, no file"
    assert ok(call(ws, "find", pattern="src/*")).text == "src/b.py\nsrc/deep/"
    assert ok(call(ws, "find", pattern="src/deep/")).text == "src/deep/"


def pathlib_dotfiles(ws: Path) -> None:
    glob_tree(ws)
    assert ok(call(ws, "find", pattern="*")).text.split("\n") == [
        ".config/",
        ".env",
        ".ssh/",
        "a.py",
        "src/",
    ]
    assert ok(call(ws, "find", pattern="**/*.toml")).text == ".config/t.toml"


def no_braces(ws: Path) -> None:
    glob_tree(ws)
    answer = ok(call(ws, "find", pattern="**/*.{py,toml}"))
    assert answer.text == "No files found matching pattern: **/*.{py,toml}"


def secrets_listed(ws: Path) -> None:
    glob_tree(ws)
    assert ok(call(ws, "find", pattern="**/.env*")).text == ".env"
    assert ok(call(ws, "find", pattern="*", path=".ssh")).text == ".ssh/id_rsa"
    assert ok(call(ws, "find", pattern="**/id_*")).text == ".ssh/id_rsa"


def find_has_no_paging(ws: Path) -> None:
    for n in range(5):
        (ws / f"f{n}.txt").write_text("x\n")
    capped = ok(call(ws, "find", pattern="*.txt", limit=2)).text
    assert capped.split("\n")[-1] == "[Results limited to 2 entries]" and "offset" not in capped
    refused = call(ws, "find", pattern="*.txt", offset=2)
    assert refused.error and "offset\n  Unexpected keyword argument" in refused.text


def surrogate_names(ws: Path) -> None:
    (ws / "plain.txt").write_text("x\n")
    os.close(os.open(os.path.join(os.fsencode(ws), b"bad\xff.txt"), os.O_CREAT | os.O_WRONLY))
    assert ok(call(ws, "find", pattern="*.txt")).text == "bad\udcff.txt\nplain.txt"


def raw_errno_texts(ws: Path) -> None:
    for args in ({"pattern": "x" * 131072}, {"pattern": "*", "path": "x" * 131072}):
        answer = ok(call(ws, "find", **args))
        assert answer.text.startswith("Error finding files: [Errno 36] File name too long")


def find_has_no_time_limit(ws: Path) -> None:
    import inspect

    from agno.tools.coding import CodingTools

    assert list(inspect.signature(CodingTools.find).parameters) == [
        "self",
        "pattern",
        "path",
        "limit",
    ]
    source = inspect.getsource(CodingTools.find)
    assert "timeout" not in source and "time" not in source, "a plain Path.glob walk"


# --- robustness ----------------------------------------------------------------------------------


def framework_texts(ws: Path) -> None:
    unknown = call(ws, "write_file", file_path="f", contents="", extra=None)
    assert unknown.error and unknown.text.startswith(
        "1 validation error for CodingTools.write_file"
    )
    assert "input_type=NoneType" in unknown.text and "errors.pydantic.dev" in unknown.text
    null = call(ws, "write_file", file_path="f", contents="null")
    assert null.error and "input_value=None" in null.text, "the string 'null' became None"
    shell = call(ws, "run_shell", command="true")
    assert shell.error and "input_value=True" in shell.text, "the string 'true' became True"


# --- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    name: str
    entries: tuple[str, ...]
    demo: Callable[[Path], None]


DEVIATIONS = [
    Deviation(
        "refusals are successes",
        (
            "test_edit.py::test_missing_file",
            "test_edit.py::test_missing_file_with_empty_old_string",
            "test_edit.py::test_directory",
            "test_edit.py::test_empty_old_string",
            "test_edit_text.py::test_argument_errors_name_the_argument[empty-old]",
            "test_edit.py::test_not_found[absent]",
            "test_edit.py::test_not_found[close]",
            "test_edit.py::test_not_found[lines]",
            "test_edit.py::test_partial_prefixes_are_not_stripped",
            "test_edit_text.py::test_not_found_names_the_file",
            "test_edit_text.py::test_not_found_suggests_reading_again",
            "test_edit_text.py::test_missing_file_is_named",
            "test_edit_text.py::test_directory_is_named",
            "test_edit.py::test_several_matches_refused",
            "test_edit.py::test_two_matches_on_one_line_refused",
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[three]",
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[four]",
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[multi-line]",
            "test_write.py::test_bad_arguments[path-empty]",
            "test_write.py::test_bad_arguments[path-surrogate]",
            "test_write.py::test_nul_in_path",
            "test_write.py::test_directory_target",
            "test_write.py::test_parent_is_a_file",
            "test_write.py::test_path_error_names_the_path[directory]",
            "test_write.py::test_path_error_names_the_path[parent-file]",
            "test_write.py::test_path_error_names_the_path[deep-parent-file]",
            "test_write.py::test_lone_surrogate_rejected",
        ),
        refusals_are_successes,
    ),
    Deviation("no-op edit", ("test_edit.py::test_identical_strings",), no_op_edit),
    Deviation("binary edited", ("test_edit.py::test_binary_refused",), binary_edited),
    Deviation(
        "edit decodes UTF-8 only",
        ("test_edit.py::test_latin1_bytes_kept", "test_edit.py::test_utf16le_never_reencoded"),
        utf8_only_edit,
    ),
    Deviation(
        "read's prefixes not stripped",
        ("test_edit.py::test_line_number_prefixes_stripped",),
        prefixes_not_stripped,
    ),
    Deviation(
        "line endings become LF",
        (
            "test_edit.py::test_crlf_file",
            "test_edit.py::test_crlf_rest_of_file_kept",
            "test_edit.py::test_crlf_old_string_also_matches",
            "test_edit.py::test_lone_cr_file",
            "test_edit.py::test_mixed_endings_lf_first",
            "test_edit.py::test_mixed_endings_outside_span",
            "test_edit.py::test_bom_and_crlf",
            "test_edit.py::test_observation[crlf]",
            "test_edit_properties.py::test_only_the_span_changes",
        ),
        endings_become_lf,
    ),
    Deviation(
        "in-place writes",
        (
            "test_write.py::test_readers_never_see_a_torn_file",
            "test_write.py::test_concurrent_writes_never_tear",
            "test_write.py::test_cancelled_write_leaves_old_or_new",
            "WRITE-QUEUE-02",
        ),
        in_place_writes,
    ),
    Deviation(
        "racing edits lost",
        ("test_edit.py::test_concurrent_edits_through_aliases",),
        racing_edits_lost,
    ),
    Deviation(
        "written as given",
        (
            "test_write.py::test_bom_kept_once[plain]",
            "test_write.py::test_bom_crlf_file_keeps_both",
            "test_write_properties.py::test_line_endings_for_any_text",
            "test_write.py::test_utf16le_kept[plain]",
            "test_write.py::test_utf16le_kept[with-feff]",
        ),
        written_as_given,
    ),
    Deviation(
        "find's refusals are successes",
        (
            "test_glob.py::test_bad_arguments[empty]",
            "test_glob_text.py::test_error_names_the_argument[pattern-empty]",
            "test_glob.py::test_missing_file_and_loop_paths[nope]",
            "test_glob.py::test_missing_file_and_loop_paths[nope/deeper]",
            "test_glob.py::test_missing_file_and_loop_paths[a.txt]",
            "test_glob.py::test_missing_file_and_loop_paths[loop_a]",
            "test_glob_text.py::test_error_names_the_path[nope]",
            "test_glob_text.py::test_error_names_the_path[no/such/dir]",
            "test_glob_text.py::test_error_names_the_path[a.txt]",
        ),
        find_refusals_are_successes,
    ),
    Deviation(
        "limit 0 lists one",
        (
            "test_glob.py::test_bad_arguments[limit]",
            "test_glob_text.py::test_error_names_the_argument[limit]",
        ),
        limit_zero_lists_one,
    ),
    Deviation(
        "directories match",
        (
            "test_glob.py::test_declared_dialect[**]",
            "test_glob.py::test_files_only_links_not_followed",
            "test_glob.py::test_sorted_by_path",
            "test_glob_filters.py::test_ripgrep_config_changes_nothing",
            "test_glob_limits.py::test_hostile_input_answered_cleanly[limit-1e12]",
            "test_glob_limits.py::test_hostile_input_answered_cleanly[limit-1e30]",
            "test_glob_limits.py::test_output_cap",
            "test_glob.py::test_shared_pattern_semantics[src/deep/**]",
            "test_glob.py::test_shared_pattern_semantics[src/*]",
            "test_glob.py::test_declared_dialect[src/deep/]",
            "test_glob.py::test_declared_dialect[.*]",
        ),
        directories_match,
    ),
    Deviation(
        "pathlib dotfiles",
        (
            "test_glob.py::test_declared_dialect[*]",
            "test_glob.py::test_declared_dialect[**/*.toml]",
        ),
        pathlib_dotfiles,
    ),
    Deviation(
        "no braces",
        (
            "test_glob.py::test_shared_pattern_semantics[**/*.{js,ts}]",
            "test_glob.py::test_shared_pattern_semantics[lib/*.{ts,tsx}]",
        ),
        no_braces,
    ),
    Deviation(
        "secrets listed",
        (
            "test_glob_filters.py::test_secrets_never_listed[**/*.pem]",
            "test_glob_filters.py::test_secrets_never_listed[**/.env*]",
            "test_glob_filters.py::test_secrets_never_listed[**/credentials]",
            "test_glob_filters.py::test_secrets_never_listed[**/id_*]",
            "test_glob_filters.py::test_secrets_never_listed[**]",
            "test_glob_filters.py::test_secrets_never_listed[.env]",
            "test_glob_filters.py::test_secrets_never_listed[.git/**]",
            "test_glob_filters.py::test_secrets_never_listed[.ssh/*]",
            "test_glob_filters.py::test_secrets_never_listed[vendor/**]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[.aws]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[.git/hooks]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[.git]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[.gnupg]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[.ssh]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[home/.ssh]",
            "test_glob_filters.py::test_sensitive_root_shows_nothing[vendor/.SVN]",
            "test_glob_filters.py::test_no_pattern_ever_lists_a_secret",
        ),
        secrets_listed,
    ),
    Deviation(
        "find has no paging",
        (
            "test_glob_limits.py::test_cap_and_continuation",
            "test_glob_limits.py::test_limit_below_cap",
            "test_glob_limits.py::test_paging_exactly_once",
            "test_glob_limits.py::test_paging_thousands",
            "test_glob_text.py::test_cut_names_the_offset_to_continue",
        ),
        find_has_no_paging,
    ),
    Deviation(
        "surrogate names",
        ("test_glob.py::test_nfd_and_non_utf8_names",),
        surrogate_names,
    ),
    Deviation(
        "raw Errno texts",
        (
            "test_glob_limits.py::test_hostile_input_answered_cleanly[path-128KiB]",
            "test_glob_limits.py::test_hostile_input_answered_cleanly[pattern-128KiB]",
        ),
        raw_errno_texts,
    ),
    Deviation(
        "no time limit",
        ("test_glob_limits.py::test_timeout",),
        find_has_no_time_limit,
    ),
    Deviation("framework texts", ("ROBUST-FUZZ-01",), framework_texts),
]


def test_every_entry_is_shown_by_exactly_one_deviation() -> None:
    assert_each_entry_shown_once(
        ADAPTER / "expectations.toml", ((d.name, d.entries) for d in DEVIATIONS), "agno"
    )


@pytest.mark.parametrize("deviation", DEVIATIONS, ids=lambda d: d.name)
def test_deviation_shown_by_calling_agno(deviation: Deviation, tmp_path: Path) -> None:
    need_agno()
    ws = tmp_path / "ws"
    ws.mkdir()
    deviation.demo(ws)
