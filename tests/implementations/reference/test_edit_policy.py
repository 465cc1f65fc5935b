"""The reference edit's own wording and error codes, which no conformance clause judges, pinned.

Conformance judges what every correct edit shares: an error result, the argument or file it
names, the counts and lines of an ambiguous match. The code in ``details.error``, extra details
such as ``missing``, and the exact sentences (which say what to do next) are this reference's
choices; a change to any of them should be deliberate. These tests say so, and they kill the
mutants of that policy in the mutation run (docs/mutation.md). Each text below was read and
judged clear and actionable when it was pinned.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import edit, fsport
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.edit import EditOps
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from tests.implementations.reference.test_write import call, text

ONE = {"old_string": "alpha", "new_string": "A"}

# (id, arguments, code, the whole text with {path} for the file's absolute path)
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "both-forms",
        {"file_path": "f.txt", **ONE, "edits": [ONE]},
        "invalid_argument",
        "edit: give either old_string/new_string or edits, not both.",
    ),
    (
        "old-string-beside-edits",
        {"file_path": "f.txt", "old_string": "alpha", "edits": [ONE]},
        "invalid_argument",
        "edit: give either old_string/new_string or edits, not both.",
    ),
    (
        "new-string-beside-edits",
        {"file_path": "f.txt", "new_string": "A", "edits": [ONE]},
        "invalid_argument",
        "edit: give either old_string/new_string or edits, not both.",
    ),
    (
        "replace-all-beside-edits",
        {"file_path": "f.txt", "edits": [ONE], "replace_all": True},
        "invalid_argument",
        "edit: replace_all goes inside each edits[i], not beside edits.",
    ),
    (
        "no-edits",
        {"file_path": "f.txt", "edits": []},
        "invalid_argument",
        "edit: edits is empty; give at least one edit.",
    ),
    (
        "edit-not-an-object",
        {"file_path": "f.txt", "edits": [ONE, "alpha"]},
        "invalid_argument",
        "edit: edits[1] must be an object.",
    ),
    (
        "edit-with-a-number",
        {"file_path": "f.txt", "edits": [{"old_string": "alpha", "new_string": 5}]},
        "invalid_argument",
        "edit: edits[0]: new_string must be a string, got integer 5.",
    ),
    (
        "empty-old",
        {"file_path": "f.txt", "old_string": "", "new_string": "x"},
        "empty_old_string",
        "edit: old_string is empty. Quote the exact text to replace; to create or overwrite a "
        "whole file use write.",
    ),
    (
        "empty-old-in-edits",
        {"file_path": "f.txt", "edits": [ONE, {"old_string": "", "new_string": "x"}]},
        "empty_old_string",
        "edit: edits[1].old_string is empty. Quote the exact text to replace; to create or "
        "overwrite a whole file use write.",
    ),
    (
        "identical",
        {"file_path": "f.txt", "old_string": "alpha", "new_string": "alpha"},
        "no_change",
        "edit: old_string and new_string are identical; nothing would change.",
    ),
    (
        "identical-in-edits",
        {"file_path": "f.txt", "edits": [ONE, {"old_string": "beta", "new_string": "beta"}]},
        "no_change",
        "edit: edits[1].old_string and new_string are identical; nothing would change.",
    ),
    (
        "unchanged-after-matching",
        {"file_path": "f.txt", "old_string": "alpha  ", "new_string": "alpha"},
        "no_change",
        "The edit leaves {path} unchanged; nothing was written.",
    ),
    (
        "not-found-in-edits",
        {"file_path": "f.txt", "edits": [ONE, {"old_string": "gamma", "new_string": "G"}]},
        "not_found",
        "edits[1]: old_string was not found in {path}, not even with quotes, dashes, spaces and "
        "trailing whitespace normalised. Read the file again and copy the exact text (without "
        "line-number prefixes).",
    ),
    (
        "ambiguous",
        {"file_path": "f.txt", "old_string": "beta", "new_string": "B"},
        "ambiguous",
        "old_string occurs 2 times in {path}, starting at lines 2, 3. Add surrounding lines to "
        "make it unique, or set replace_all to change every occurrence.",
    ),
    (
        "ambiguous-in-edits",
        {"file_path": "f.txt", "edits": [ONE, {"old_string": "beta", "new_string": "B"}]},
        "ambiguous",
        "edits[1]: old_string occurs 2 times in {path}, starting at lines 2, 3. Add surrounding "
        "lines to make it unique, or set replace_all to change every occurrence.",
    ),
    (
        "directory",
        {"file_path": "d", **ONE},
        "is_directory",
        "{path} is a directory; edit needs a file.",
    ),
    (
        "binary",
        {"file_path": "bin.dat", **ONE},
        "binary_file",
        "{path} looks like a binary file (it contains NUL bytes); edit changes text files only. "
        "Inspect it with bash `file` or `hexdump -C`.",
    ),
    (
        "bad-utf16",
        {"file_path": "bad16.txt", "old_string": "A", "new_string": "b"},
        "undecodable",
        "{path} starts with a utf-16le-bom byte order mark but is not valid utf-16-le; edit will "
        "not guess. Inspect it with bash `hexdump -C`.",
    ),
    (
        "unencodable",
        {"file_path": "legacy.txt", "old_string": "latin", "new_string": "€uro"},
        "unencodable",
        "new_string holds '€', which {path} (latin-1) cannot store. Use characters of that "
        "encoding.",
    ),
]

FILES = {
    "f.txt": b"alpha\nbeta\nbeta\n",
    "bin.dat": b"a\x00b",
    "bad16.txt": b"\xff\xfeA",
    "legacy.txt": b"caf\xe9 latin\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "d").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    ("arguments", "code", "said"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_error_code_and_text(
    workspace: Path, arguments: dict[str, Any], code: str, said: str
) -> None:
    result = call("edit", workspace, **arguments)
    path = str(workspace / arguments["file_path"])
    assert result["isError"], result
    assert result["details"]["error"] == code, result["details"]
    assert text(result) == said.format(path=path)
    assert {name: (workspace / name).read_bytes() for name in FILES} == FILES, "an error wrote"


@pytest.mark.parametrize(
    ("name", "tail"),
    [("f.tx", " Did you mean: f.txt?"), ("zzz/q.txt", " Check the path, or use write.")],
    ids=["a-close-name", "nothing-close"],
)
def test_missing_file(workspace: Path, name: str, tail: str) -> None:
    result = call("edit", workspace, file_path=name, old_string="alpha", new_string="A")
    assert result["isError"] and result["details"]["error"] == "not_found", result["details"]
    assert result["details"]["missing"] == "file"
    assert text(result) == f"File not found: {workspace / name}.{tail}"


def _edit(workspace: Path, name: str, data: str, **arguments: Any) -> dict[str, Any]:
    (workspace / name).write_text(data)
    result: dict[str, Any] = call("edit", workspace, file_path=name, **arguments)
    return result


def test_many_matches_show_the_first_five_lines_and_count_the_rest(workspace: Path) -> None:
    result = _edit(workspace, "m.txt", "x = 1\n" * 8, old_string="x = 1", new_string="y")
    assert result["isError"] and result["details"] == {
        "error": "ambiguous",
        "occurrences": 8,
        "lines": [1, 2, 3, 4, 5],
    }
    assert text(result) == (
        f"old_string occurs 8 times in {workspace / 'm.txt'}, starting at lines 1, 2, 3, 4, 5 "
        "(and 3 more). Add surrounding lines to make it unique, or set replace_all to change "
        "every occurrence."
    )


def test_a_missing_edit_is_named_by_its_index(workspace: Path) -> None:
    edits = [{"old_string": "zz", "new_string": "q"}, {"old_string": "x", "new_string": "y"}]
    result = _edit(workspace, "m.txt", "x\n", edits=edits)
    assert result["details"] == {"error": "not_found", "missing": "old_string", "edit": 0}
    assert text(result) == (
        f"edits[0]: old_string was not found in {workspace / 'm.txt'}, not even with quotes, "
        "dashes, spaces and trailing whitespace normalised. Read the file again and copy the "
        "exact text (without line-number prefixes)."
    )


def test_a_fuzzy_match_far_larger_than_asked_is_refused(workspace: Path) -> None:
    result = _edit(
        workspace, "fz.txt", "a" + " " * 1000 + "\nb\n", old_string="a\nb", new_string="c"
    )
    assert result["details"] == {"error": "fuzzy_disproportionate"}
    assert text(result) == (
        f"the only match for old_string in {workspace / 'fz.txt'} is a fuzzy one spanning lines "
        "1-2, far larger than old_string; refusing. Quote the exact text."
    )


# --- what a successful edit's details say --------------------------------------------------------

OMITTED = ("diff_omitted", "diff_coarse", "patch_truncated", "line_number_prefixes_stripped")


def test_details_of_a_plain_edit(workspace: Path) -> None:
    result = call("edit", workspace, file_path="f.txt", old_string="alpha", new_string="A")
    details, path = result["details"], str(workspace / "f.txt")
    assert not result["isError"] and text(result) == f"Successfully replaced 1 block(s) in {path}."
    assert (details["path"], details["replacements"], details["encoding"], details["fuzzy"]) == (
        path,
        1,
        "utf-8",
        False,
    )
    assert not [key for key in OMITTED if key in details], details
    assert details["observation"] == {
        "path": path,
        "replacements": 1,
        "first_changed_line": 1,
        "patch": details["patch"],
    }
    assert details["firstChangedLine"] == 1 and details["diff"] == "-    1 alpha\n+    1 A"


def test_no_diff_past_the_diff_limit_and_a_cut_patch_at_it(workspace: Path) -> None:
    limit = 1024 * 1024  # edit.diff_max_bytes
    past = _edit(
        workspace, "past.txt", "a\n" + "x" * (limit - 1), old_string="a\n", new_string="b\n"
    )
    assert past["details"]["diff_omitted"] == "too_large"
    assert not {"patch", "diff"} & set(past["details"]), sorted(past["details"])
    assert "patch" not in past["details"]["observation"]
    at = _edit(workspace, "at.txt", "a\n" + "x" * (limit - 2), old_string="a\n", new_string="b\n")
    assert "diff_omitted" not in at["details"] and at["details"]["diff"] == "-    1 a\n+    1 b"
    # its one long context line makes the patch longer than the patch cap: cut, and then left
    # out of the observation (a cut patch does not apply)
    assert at["details"]["patch_truncated"] is True
    assert len(at["details"]["patch"].encode()) <= 256 * 1024
    assert "patch" not in at["details"]["observation"]


def test_a_coarse_diff_says_so_and_still_applies(workspace: Path) -> None:
    old, new = "\n" * 20_000, "-\n\n" * 10_000
    result = _edit(workspace, "blank.txt", old, old_string=old, new_string=new)
    details = result["details"]
    assert details["diff_coarse"] is True and "patch_truncated" not in details
    assert details["observation"]["patch"] == details["patch"]


def test_notes_of_a_fuzzy_match_with_line_numbers(workspace: Path) -> None:
    result = _edit(
        workspace, "q.txt", "say “hi”\n", old_string='1\tsay "hi"', new_string='1\tsay "yo"'
    )
    details = result["details"]
    assert details["fuzzy"] is True and details["line_number_prefixes_stripped"] is True
    assert text(result) == (
        f"Successfully replaced 1 block(s) in {workspace / 'q.txt'}. (matched after normalising "
        "quotes, dashes, spaces or trailing whitespace) (line-number prefixes were stripped from "
        "old_string and new_string)"
    )
    assert (workspace / "q.txt").read_text() == 'say "yo"\n'


# --- a disk that refuses the new bytes ------------------------------------------------------


class RefusingOps(EditOps):
    """The real port, but the replace raises what a read-only or full disk would."""

    def __init__(self, error: OSError) -> None:
        self.error = error

    def replace(
        self,
        target: str,
        data: bytes | fsport.Pieces,
        mode: int,
        cancel: threading.Event | None = None,
    ) -> None:
        raise self.error


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (
            PermissionError(13, "Permission denied"),
            "permission_denied",
            "Permission denied: cannot write {path}.",
        ),
        (
            OSError(28, "No space left on device"),
            "io_error",
            "Cannot write {path}: No space left on device.",
        ),
        (OSError("the disk went away"), "io_error", "Cannot write {path}: the disk went away."),
    ],
    ids=["denied", "disk-full", "no-strerror"],
)
def test_a_refused_replace_is_an_error_and_the_file_is_unchanged(
    workspace: Path, error: OSError, code: str, said: str
) -> None:
    tools = ReferenceTools(None, ops={"edit": RefusingOps(error)})
    result = call("edit", workspace, tools, file_path="f.txt", old_string="alpha", new_string="A")
    assert result["isError"] and result["details"] == {"error": code}, result
    assert text(result) == said.format(path=workspace / "f.txt")
    assert (workspace / "f.txt").read_bytes() == FILES["f.txt"]


def test_two_close_names_are_both_offered(workspace: Path) -> None:
    (workspace / "f.txx").write_bytes(b"")
    result = call("edit", workspace, file_path="f.tx", old_string="alpha", new_string="A")
    # equally close names come in difflib's order (by score, then by name, last first)
    assert text(result) == f"File not found: {workspace / 'f.tx'}. Did you mean: f.txx, f.txt?"


def test_a_cancelled_edit_says_nothing_was_written(workspace: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    arguments = {"file_path": "f.txt", "old_string": "alpha", "new_string": "A"}
    result = ReferenceTools().call("edit", arguments, str(workspace), cancel=cancel)
    assert result["details"] == {"error": "aborted"}
    assert text(result) == (
        f"The edit of {workspace / 'f.txt'} was cancelled; nothing was written, the file is as "
        "it was."
    )


def test_a_variant_without_the_line_number_retry(workspace: Path) -> None:
    """``Steps(retry_line_numbers=False)``: a variant's edit that takes old_string literally."""
    ctx = CallContext(
        cwd=str(workspace),
        limits=Limits(None, extra_defaults=edit.LIMITS),
        queue=MutationQueue(),
    )
    literal = edit.Steps(retry_line_numbers=False)
    numbered = {"file_path": "f.txt", "old_string": "1\talpha", "new_string": "1\tA"}
    with pytest.raises(ToolError) as refused:
        edit.run(numbered, ctx, steps=literal)
    assert refused.value.code == "not_found"
    assert (workspace / "f.txt").read_bytes() == FILES["f.txt"]
    done = edit.run({**numbered, "old_string": "alpha", "new_string": "A"}, ctx, steps=literal)
    assert not done["isError"] and "line_number_prefixes_stripped" not in done["details"]
    assert (workspace / "f.txt").read_bytes() == b"A\nbeta\nbeta\n"


def test_a_variant_that_strips_its_own_prefix(workspace: Path) -> None:
    """``Steps(number_prefix=...)``: a variant whose read shows ``00001| line`` strips that."""
    ctx = CallContext(
        cwd=str(workspace),
        limits=Limits(None, extra_defaults=edit.LIMITS),
        queue=MutationQueue(),
    )
    pipe = edit.Steps(number_prefix=re.compile(r"^\s*\d+ ?\| (.*)$", re.S))
    arrowed = {"file_path": "f.txt", "old_string": "     1\u2192alpha", "new_string": "A"}
    with pytest.raises(ToolError) as refused:
        edit.run(arrowed, ctx, steps=pipe)
    assert refused.value.code == "not_found"
    assert (workspace / "f.txt").read_bytes() == FILES["f.txt"]
    piped = {"file_path": "f.txt", "old_string": "00001| alpha", "new_string": "00001| A"}
    done = edit.run(piped, ctx, steps=pipe)
    assert done["details"]["line_number_prefixes_stripped"]
    assert (workspace / "f.txt").read_bytes() == b"A\nbeta\nbeta\n"
