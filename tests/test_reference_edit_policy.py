"""The reference edit's own wording and error codes, which no conformance clause judges, pinned.

Conformance judges what every correct edit shares: an error result, the argument or file it
names, the counts and lines of an ambiguous match. The code in ``details.error``, extra details
such as ``missing``, and the exact sentences (which say what to do next) are this reference's
choices; a change to any of them should be deliberate. These tests say so, and they kill the
mutants of that policy in the mutation run (docs/mutation.md). Each text below was read and
judged clear and actionable when it was pinned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_reference_write import call, text

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
