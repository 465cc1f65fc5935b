"""edit: arguments, refusals, exact and literal replacement, endings, encodings, fuzzy, multi-edit.

Behaviour is judged on the bytes on disk and the observation; the text only in test_edit_text.py.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from typing import Any

import pytest

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.edit_checks import (
    BOM,
    UTF16LE_BOM,
    aged,
    edit,
    expect_edited,
    expect_kept_encoding,
    expect_refused,
    expect_span_replaced,
    first_changed_line,
)
from pytest_agenttools.harness.assertions import (
    apply_unified_patch,
    edit_obs,
    expect_error,
    expect_ok,
)
from pytest_agenttools.harness.markers import clause, feature

BAD_ARGUMENTS: dict[str, dict[str, Any]] = {
    "no-path": {"old_string": "a", "new_string": "b"},
    "no-old": {"file_path": "f.txt", "new_string": "b"},
    "no-new": {"file_path": "f.txt", "old_string": "a"},
    "old-int": {"file_path": "f.txt", "old_string": 1, "new_string": "b"},
    "new-null": {"file_path": "f.txt", "old_string": "a", "new_string": None},
    "new-list": {"file_path": "f.txt", "old_string": "a", "new_string": ["b"]},
    "path-int": {"file_path": 3, "old_string": "a", "new_string": "b"},
    "replace-all-str": {
        "file_path": "f.txt",
        "old_string": "a",
        "new_string": "b",
        "replace_all": "yes",
    },
}


@clause("EDIT-ARG-02")
@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_arguments(tools: ToolClient, ws: Workspace, case: str) -> None:
    # each call would succeed if its bad value were coerced: "1" and "a" occur once in f.txt,
    # and a file named "3" exists
    ws.put("3", "a\n")
    before = aged(ws, "f.txt", "a 1\n")
    expect_refused(tools.call("edit", **BAD_ARGUMENTS[case]), ws, "f.txt", before)
    assert ws.get("3") == b"a\n", "a bad file_path was coerced into the name of another file"


@clause("EDIT-ARG-02")
@feature("edit.multi")
@pytest.mark.parametrize(
    "arguments",
    [
        {"old_string": "a", "new_string": "b", "edits": [{"old_string": "a", "new_string": "c"}]},
        {"edits": [{"old_string": "a"}]},
        {"edits": ["a"]},
        {"edits": []},
    ],
    ids=["edits-beside-old", "entry-without-new", "entry-not-object", "no-entries"],
)
def test_bad_edits(tools: ToolClient, ws: Workspace, arguments: dict[str, Any]) -> None:
    before = aged(ws, "f.txt", "a\n")
    expect_refused(edit(tools, **arguments), ws, "f.txt", before)


@clause("EDIT-NF-02")
def test_missing_file(tools: ToolClient, ws: Workspace) -> None:
    expect_error(edit(tools, "nope.txt", old_string="a", new_string="b"))
    assert ws.files() == [], f"a failed edit created {ws.files()}"


@clause("EDIT-NF-02")
def test_missing_file_with_empty_old_string(tools: ToolClient, ws: Workspace) -> None:
    result = edit(tools, "new.txt", old_string="", new_string="created by edit\n")
    assert ws.files() == [], (
        f"an edit with an empty old_string created {ws.files()} at a missing path "
        f"(is_error={result.is_error}): files are created by write, never by edit"
    )
    expect_error(result, what="an edit of a missing file with an empty old_string")


@clause("EDIT-NF-02")
def test_directory(tools: ToolClient, ws: Workspace) -> None:
    ws.put("d/inside.txt", "a\n")
    expect_error(edit(tools, "d", old_string="a", new_string="b"))
    assert ws.files() == ["d/inside.txt"] and ws.get("d/inside.txt") == b"a\n"


@clause("EDIT-BIN-01")
def test_binary_refused(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "b.bin", b"head\x00\x01\x02 text tail\n")
    expect_refused(edit(tools, "b.bin", old_string="text", new_string="TEXT"), ws, "b.bin", before)


@clause("EDIT-EMPTY-02")
def test_empty_old_string(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "abc\n")
    expect_refused(edit(tools, old_string="", new_string="x"), ws, "f.txt", before)


@clause("EDIT-EMPTY-02")
@feature("edit.multi")
def test_empty_old_string_in_edits(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "abc\n")
    entries = [{"old_string": "abc", "new_string": "x"}, {"old_string": "", "new_string": "y"}]
    expect_refused(edit(tools, edits=entries), ws, "f.txt", before)


@clause("EDIT-NOCHANGE-02")
def test_identical_strings(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "abc\n")
    expect_refused(edit(tools, old_string="abc", new_string="abc"), ws, "f.txt", before)


@clause("EDIT-NOTFOUND-02")
@pytest.mark.parametrize("old", ["three", "twx", "one\nthree"], ids=["absent", "close", "lines"])
def test_not_found(tools: ToolClient, ws: Workspace, old: str) -> None:
    before = aged(ws, "f.txt", "one\ntwo\n")
    expect_refused(edit(tools, old_string=old, new_string="3"), ws, "f.txt", before)


@clause("EDIT-EXACT-01")
def test_exact_unique_replacement(tools: ToolClient, ws: Workspace) -> None:
    before = "keep  \t \nfn old_name() {}\n“quotes” – stay\n".encode()
    ws.put("f.txt", before)
    expect_edited(
        edit(tools, old_string="old_name", new_string="new_name"),
        ws,
        "f.txt",
        before.replace(b"old_name", b"new_name"),
        replacements=1,
        before=before,
    )


@clause("EDIT-EXACT-01")
def test_multiline_exact(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "a\nb\nc\nd\n")
    result = edit(tools, old_string="b\nc", new_string="B\nX\nC")
    expect_edited(result, ws, "f.txt", b"a\nB\nX\nC\nd\n", replacements=1)


@clause("EDIT-EXACT-01")
def test_delete_with_empty_new_string(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "a\nremove me\nb\n")
    result = edit(tools, old_string="remove me\n", new_string="")
    expect_edited(result, ws, "f.txt", b"a\nb\n", replacements=1)


OBSERVED: dict[str, tuple[bytes, str, str, bytes]] = {
    "middle-line": (b"l1\nl2\nl3\nl4\n", "l3", "L3", b"l1\nl2\nL3\nl4\n"),
    "several-lines": (b"l1\nl2\nl3\nl4\nl5\n", "l3\nl4", "x", b"l1\nl2\nx\nl5\n"),
    "insert-lines": (b"a\nb\n", "b", "b\nc\nd", b"a\nb\nc\nd\n"),
    "crlf": (b"a\r\nb\r\nc\r\n", "c", "C", b"a\r\nb\r\nC\r\n"),
    "bom-first-line": (BOM + b"a\nb\n", "a", "A", BOM + b"A\nb\n"),
    "last-line-no-eol": (b"a\nb\nc", "c", "see", b"a\nb\nsee"),
    "delete-tail": (b"a\nb\nc\nd\n", "\nc\nd", "", b"a\nb\n"),
}


@clause("EDIT-OBS-01")
@pytest.mark.parametrize("case", sorted(OBSERVED))
def test_observation(tools: ToolClient, ws: Workspace, case: str) -> None:
    before, old, new, after = OBSERVED[case]
    ws.put("f.txt", before)
    result = edit(tools, old_string=old, new_string=new)
    expect_edited(result, ws, "f.txt", after, replacements=1, before=before)


@clause("EDIT-OBS-01")
def test_observation_path_of_a_spelled_path(tools: ToolClient, ws: Workspace) -> None:
    ws.put("sub/f.txt", "a\n")
    result = edit(tools, "./sub/../sub/f.txt", old_string="a", new_string="b")
    expect_edited(result, ws, "sub/f.txt", b"b\n", replacements=1)


@clause("EDIT-OBS-01")
@feature("edit.replace_all")
def test_observation_counts_every_occurrence(tools: ToolClient, ws: Workspace) -> None:
    before = b"a\nx\nx x\nb\nx\n"
    ws.put("f.txt", before)
    result = edit(tools, old_string="x", new_string="y", replace_all=True)
    expect_edited(result, ws, "f.txt", b"a\ny\ny y\nb\ny\n", replacements=4, before=before)


@clause("EDIT-OBS-01")
@feature("edit.multi")
def test_observation_counts_over_edits(tools: ToolClient, ws: Workspace) -> None:
    before = b"one\ntwo\nthree\nfour\n"
    ws.put("f.txt", before)
    entries = [
        {"old_string": "four", "new_string": "4"},
        {"old_string": "two", "new_string": "2"},
        {"old_string": "three", "new_string": "3"},
    ]
    result = edit(tools, edits=entries)
    expect_edited(result, ws, "f.txt", b"one\n2\n3\n4\n", replacements=3, before=before)


@clause("EDIT-UNIQ-02")
def test_several_matches_refused(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "x\ndup\nx\ndup\nx\nx\ndup\n")
    expect_refused(edit(tools, old_string="dup", new_string="one"), ws, "f.txt", before)


@clause("EDIT-UNIQ-02")
def test_two_matches_on_one_line_refused(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "f(a, a)\n")
    expect_refused(edit(tools, old_string="a", new_string="b"), ws, "f.txt", before)


LITERALS = ["$&", "$$", "$`", "$'", "$1", "\\1", "\\g<0>", "\\\\n", "${name}", "$0$&$$"]


@clause("EDIT-LIT-01")
@pytest.mark.parametrize("replacement", LITERALS)
def test_replacement_is_literal(tools: ToolClient, ws: Workspace, replacement: str) -> None:
    ws.put("f.txt", "price: OLD;\n")
    result = edit(tools, old_string="OLD", new_string=replacement)
    expect_edited(result, ws, "f.txt", f"price: {replacement};\n".encode(), replacements=1)


@clause("EDIT-RA-01")
def test_replace_all_counts(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "foo bar foo\nfoofoo\n")
    result = edit(tools, old_string="foo", new_string="baz", replace_all=True)
    expect_edited(result, ws, "f.txt", b"baz bar baz\nbazbaz\n", replacements=4)


@clause("EDIT-RA-01")
def test_replace_all_non_overlapping(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "aaaaa\n")
    result = edit(tools, old_string="aa", new_string="b", replace_all=True)
    expect_edited(result, ws, "f.txt", b"bba\n", replacements=2)


@clause("EDIT-RA-01")
def test_replace_all_of_a_unique_text(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "one two\n")
    result = edit(tools, old_string="two", new_string="2", replace_all=True)
    expect_edited(result, ws, "f.txt", b"one 2\n", replacements=1)


@clause("EDIT-RA-02")
@pytest.mark.parametrize("replacement", LITERALS)
def test_replace_all_is_literal(tools: ToolClient, ws: Workspace, replacement: str) -> None:
    ws.put("f.txt", "X-X\nX\n")
    result = edit(tools, old_string="X", new_string=replacement, replace_all=True)
    expected = f"{replacement}-{replacement}\n{replacement}\n".encode()
    expect_edited(result, ws, "f.txt", expected, replacements=3)


RA_ENDINGS: dict[str, tuple[bytes, str, str, bytes, int]] = {
    "bom-crlf": (
        BOM + b"X a\r\nb X\r\nX\r\n",
        "X",
        "1\n2",
        BOM + b"1\r\n2 a\r\nb 1\r\n2\r\n1\r\n2\r\n",
        3,
    ),
    "bom-lf": (BOM + b"X\nX\n", "X", "$&", BOM + b"$&\n$&\n", 2),
    "crlf-multiline-old": (b"k\r\nv\r\nk\r\nv\r\nend\r\n", "k\nv", "kv", b"kv\r\nkv\r\nend\r\n", 2),
    "bom-crlf-multiline-old": (
        BOM + b"k\r\nv\r\nk\r\nv",
        "k\nv",
        "a\nb",
        BOM + b"a\r\nb\r\na\r\nb",
        2,
    ),
    "mixed": (b"X\r\nm\nX\rX\n", "X", "p\nq", b"p\r\nq\r\nm\np\r\nq\rp\r\nq\n", 3),
    "lone-cr": (b"X\rY\rX\r", "X", "1\n2", b"1\r2\rY\r1\r2\r", 2),
}


@clause("EDIT-RA-03")
@pytest.mark.parametrize("case", sorted(RA_ENDINGS))
def test_replace_all_keeps_bom_and_endings(tools: ToolClient, ws: Workspace, case: str) -> None:
    before, old, new, after, count = RA_ENDINGS[case]
    ws.put("f.txt", before)
    result = edit(tools, old_string=old, new_string=new, replace_all=True)
    expect_edited(result, ws, "f.txt", after, replacements=count)


@clause("EDIT-EOL-01")
def test_crlf_file(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"a\r\nb\r\nc\r\n")
    result = edit(tools, old_string="a\nb", new_string="x\ny\nz")
    expect_edited(result, ws, "f.txt", b"x\r\ny\r\nz\r\nc\r\n", replacements=1)


@clause("EDIT-EOL-01")
def test_crlf_old_string_also_matches(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"a\r\nb\r\n")
    expect_edited(edit(tools, old_string="a\r\nb", new_string="B"), ws, "f.txt", b"B\r\n")


@clause("EDIT-EOL-01")
def test_crlf_rest_of_file_kept(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"one\r\ntwo\r\nthree\r\nfour\r\n")
    result = edit(tools, old_string="three", new_string="3")
    expect_edited(result, ws, "f.txt", b"one\r\ntwo\r\n3\r\nfour\r\n")


@clause("EDIT-EOL-02")
def test_mixed_endings_outside_span(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"l1\r\nl2\nl3\r\nl4\n")
    result = edit(tools, old_string="l3", new_string="A\nB")
    expect_edited(result, ws, "f.txt", b"l1\r\nl2\nA\r\nB\r\nl4\n")


@clause("EDIT-EOL-02")
def test_mixed_endings_lf_first(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"l1\nl2\r\nl3\nl4\r\n")
    result = edit(tools, old_string="l1", new_string="A\nB")
    expect_edited(result, ws, "f.txt", b"A\nB\nl2\r\nl3\nl4\r\n")


@clause("EDIT-EOL-03")
def test_lone_cr_file(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"one\rtwo\rthree\r")
    result = edit(tools, old_string="one\ntwo", new_string="1\n2")
    expect_edited(result, ws, "f.txt", b"1\r2\rthree\r")


@clause("EDIT-BOM-01")
def test_bom_kept(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", BOM + b"first line\nsecond\n")
    result = edit(tools, old_string="first", new_string="1st")
    expect_edited(result, ws, "f.txt", BOM + b"1st line\nsecond\n", replacements=1)


@clause("EDIT-BOM-01")
def test_bom_and_crlf(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", BOM + b"a\r\nb\r\n")
    result = edit(tools, old_string="a\nb", new_string="c\nd")
    expect_edited(result, ws, "f.txt", BOM + b"c\r\nd\r\n")


@clause("EDIT-BOM-01")
def test_bom_edit_elsewhere(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", BOM + b"head\nmiddle\ntail\n")
    result = edit(tools, old_string="tail", new_string="end")
    expect_edited(result, ws, "f.txt", BOM + b"head\nmiddle\nend\n")


UTF16_BEFORE = UTF16LE_BOM + "héllo\r\nwörld\r\n".encode("utf-16-le")
UTF16_AFTER = UTF16LE_BOM + "héllo\r\nwêlt\r\n".encode("utf-16-le")


@clause("EDIT-ENC-01")
def test_utf16le_kept(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", UTF16_BEFORE)
    expect_edited(edit(tools, old_string="wörld", new_string="wêlt"), ws, "f.txt", UTF16_AFTER)


@clause("EDIT-ENC-03")
def test_utf16le_never_reencoded(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", UTF16_BEFORE)
    result = edit(tools, old_string="wörld", new_string="wêlt")
    if result.is_error:
        expect_refused(result, ws, "f.txt", before)
    else:
        expect_kept_encoding(ws.get("f.txt"), UTF16_BEFORE, UTF16_AFTER)


@clause("EDIT-ENC-02")
def test_latin1_bytes_kept(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"caf\xe9 cr\xe8me\nline two\n")
    result = edit(tools, old_string="line two", new_string="LINE 2")
    expect_edited(result, ws, "f.txt", b"caf\xe9 cr\xe8me\nLINE 2\n")


FUZZY_CASES = {
    "smart-quotes": ("say(“hi”, ‘x’)\n", "say(\"hi\", 'x')", 'say("HI")', 'say("HI")\n'),
    "en-dash": ("range 1–5\n", "range 1-5", "range 1-9", "range 1-9\n"),
    "nbsp": ("a\u00a0b\n", "a b", "c", "c\n"),
    "fullwidth-cjk": ("你好，世界！\n", "你好,世界!", "再见", "再见\n"),
    "nfkc-decomposed-old": ("caf\u00e9 au lait\n", "cafe\u0301 au", "tea", "tea lait\n"),
    "nfkc-decomposed-file": ("cafe\u0301 au lait\n", "caf\u00e9 au", "tea", "tea lait\n"),
    "trailing-space": ("alpha   \nbeta\n", "alpha\nbeta", "gamma", "gamma\n"),
}


@clause("EDIT-FUZZ-01")
@pytest.mark.parametrize("case", sorted(FUZZY_CASES))
def test_fuzzy_locates(tools: ToolClient, ws: Workspace, case: str) -> None:
    before, old, new, after = FUZZY_CASES[case]
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string=old, new_string=new))
    assert ws.get("f.txt").decode() == after


FUZZY_SCOPE = {
    "quotes": (
        "title = “Doc” \u00a0\nsep — here   \nvalue = “x”\nend ‘q’ – \u3000\n",
        'value = "x"',
        'value = "y"',
    ),
    # the matched line ends in spaces: the span may or may not take them (both are correct)
    "trailing-space": ("a “b”  \ncall(“t”)   \nz ‘y’\n", 'call("t")', "done()"),
    "last-line": ("keep “this”  \nlast – line  ", "last - line", "LAST"),
    "crlf": ("x “y”\r\nv = “w”  \r\nz – q\r\n", 'v = "w"', "v = 1"),
}


@clause("EDIT-FUZZ-02")
@pytest.mark.parametrize("case", sorted(FUZZY_SCOPE))
def test_fuzzy_edit_touches_only_its_span(tools: ToolClient, ws: Workspace, case: str) -> None:
    before, old, new = FUZZY_SCOPE[case]
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string=old, new_string=new))
    expect_span_replaced(before, ws.get("f.txt").decode(), old, new)


@clause("EDIT-FUZZ-03")
def test_exact_preferred_over_fuzzy(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", 'x = "a"\ny = 1\nx = “a”\n')
    result = edit(tools, old_string='x = "a"', new_string='x = "b"')
    expect_edited(result, ws, "f.txt", 'x = "b"\ny = 1\nx = “a”\n'.encode(), replacements=1)


@clause("EDIT-FUZZ-06")
def test_duplicates_after_normalisation(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "q = “a”\nr = 1\nq = ‟a”\n")
    expect_refused(edit(tools, old_string='q = "a"', new_string="q = 2"), ws, "f.txt", before)


@clause("EDIT-FUZZ-05")
def test_disproportionate_fuzzy_refused(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "a" + " " * 1000 + "\nb\n")
    expect_refused(edit(tools, old_string="a\nb", new_string="c"), ws, "f.txt", before)


@clause("EDIT-MULTI-01")
def test_edits_match_the_original(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "alpha beta\n")
    entries = [
        {"old_string": "alpha", "new_string": "beta"},
        {"old_string": "beta", "new_string": "gamma"},
    ]
    expect_edited(edit(tools, edits=entries), ws, "f.txt", b"beta gamma\n", replacements=2)


@clause("EDIT-MULTI-01")
def test_edit_order_does_not_matter(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", "one\ntwo\nthree\n")
    entries = [
        {"old_string": "three", "new_string": "3"},
        {"old_string": "one", "new_string": "1"},
    ]
    expect_edited(edit(tools, edits=entries), ws, "f.txt", b"1\ntwo\n3\n", replacements=2)


@clause("EDIT-MULTI-01")
@feature("edit.replace_all")
def test_edits_with_replace_all(tools: ToolClient, ws: Workspace) -> None:
    ws.put("f.txt", b"a\r\nb a\r\nc\r\n")
    entries = [
        {"old_string": "a", "new_string": "A\nA", "replace_all": True},
        {"old_string": "c", "new_string": "$&"},
    ]
    result = edit(tools, edits=entries)
    expect_edited(result, ws, "f.txt", b"A\r\nA\r\nb A\r\nA\r\n$&\r\n", replacements=3)


@clause("EDIT-MULTI-04")
@pytest.mark.parametrize(
    "entries",
    [
        [{"old_string": "abc", "new_string": "1"}, {"old_string": "cde", "new_string": "2"}],
        [{"old_string": "bcd", "new_string": "1"}, {"old_string": "c", "new_string": "2"}],
        [{"old_string": "ef", "new_string": "1"}, {"old_string": "abcdef", "new_string": "2"}],
    ],
    ids=["overlapping", "nested", "nested-reversed"],
)
def test_overlapping_edits(tools: ToolClient, ws: Workspace, entries: list[Any]) -> None:
    before = aged(ws, "f.txt", "abcdef\n")
    expect_refused(edit(tools, edits=entries), ws, "f.txt", before)


@clause("EDIT-MULTI-03")
@pytest.mark.parametrize(
    "second",
    [{"old_string": "missing", "new_string": "x"}, {"old_string": "o", "new_string": "0"}],
    ids=["not-found", "ambiguous"],
)
def test_all_or_nothing(tools: ToolClient, ws: Workspace, second: dict[str, str]) -> None:
    before = aged(ws, "f.txt", "one two\n")
    entries = [{"old_string": "one", "new_string": "1"}, second]
    expect_refused(edit(tools, edits=entries), ws, "f.txt", before)


@clause("EDIT-MULTI-03")
def test_all_or_nothing_when_the_first_fails(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "one two\n")
    entries = [
        {"old_string": "missing", "new_string": "x"},
        {"old_string": "two", "new_string": "2"},
    ]
    expect_refused(edit(tools, edits=entries), ws, "f.txt", before)


@clause("EDIT-MULTI-03")
def test_chained_edit_is_not_found(tools: ToolClient, ws: Workspace) -> None:
    before = aged(ws, "f.txt", "x\n")
    entries = [{"old_string": "x", "new_string": "y"}, {"old_string": "y", "new_string": "z"}]
    expect_refused(edit(tools, edits=entries), ws, "f.txt", before)


def numbered(manifest: Manifest, lines: dict[int, str]) -> str:
    """Lines as the implementation's read shows them (EDIT-LN-02 applies to arrow, tab, pipe)."""
    style = manifest.line_number_style
    if style.numbered is None:
        pytest.skip(
            f"not run: {manifest.name} declares output.line_numbers = {style.name!r}; its read "
            "shows no numbers a model could copy (EDIT-LN-02 applies to arrow, tab and pipe)"
        )
    return "\n".join(style.render(n, text) for n, text in lines.items())


@clause("EDIT-LN-02")
def test_line_number_prefixes_stripped(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    ws.put("f.txt", "one\ntwo\nthree\n")
    old = numbered(manifest, {2: "two", 3: "three"})
    new = numbered(manifest, {2: "TWO", 3: "THREE"})
    expect_edited(edit(tools, old_string=old, new_string=new), ws, "f.txt", b"one\nTWO\nTHREE\n")


@clause("EDIT-LN-02")
def test_partial_prefixes_are_not_stripped(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    before = aged(ws, "f.txt", "one\ntwo\nthree\n")
    old = numbered(manifest, {2: "two"}) + "\nthree"
    expect_refused(edit(tools, old_string=old, new_string="x"), ws, "f.txt", before)


@clause("EDIT-DETAILS-01")
@pytest.mark.parametrize(
    ("before", "old", "new"),
    [
        ("a\nb\nc\nd\ne\nf\ng\nh\n", "e", "E\nE2"),
        ("x = 1\r\ny = 2\r\n", "y = 2", "y = 3"),
        ("no newline at end", "end", "END"),
        ("\n" * 40 + "mid\n" + "\n" * 40, "mid\n", ""),
    ],
    ids=["lf", "crlf", "no-eol", "blank-lines"],
)
def test_patch_applies_with_patch_p0(
    tools: ToolClient, ws: Workspace, before: str, old: str, new: str
) -> None:
    ws.put("sub/f.txt", before.encode())
    result = expect_ok(edit(tools, "sub/f.txt", old_string=old, new_string=new))
    obs = edit_obs(result)
    assert obs.patch, f"observation.patch is missing or empty: {dict(obs.raw)!r:.300}"
    after = ws.get("sub/f.txt")
    scratch = ws.subdir()
    scratch.put("sub/f.txt", before.encode())
    if shutil.which("patch"):
        proc = subprocess.run(
            ["patch", "-p0", "--quiet", "--batch"],
            input=obs.patch.encode(),
            cwd=scratch.root,
            capture_output=True,
            timeout=30,
        )
        assert proc.returncode == 0, f"patch -p0 failed: {proc.stdout!r} {proc.stderr!r}"
        assert scratch.get("sub/f.txt") == after, "patch -p0 does not reproduce the new file"
    else:
        assert apply_unified_patch(before, obs.patch).encode() == after
    assert obs.first_changed_line in first_changed_line(before, after.decode())


@clause("EDIT-KEEP-01")
def test_mode_kept(tools: ToolClient, ws: Workspace) -> None:
    target = ws.put("run.sh", "#!/bin/sh\necho a\n")
    os.chmod(target, 0o750)
    expect_edited(
        edit(tools, "run.sh", old_string="echo a", new_string="echo b"),
        ws,
        "run.sh",
        b"#!/bin/sh\necho b\n",
    )
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750


@clause("EDIT-KEEP-01")
def test_edit_through_symlink(tools: ToolClient, ws: Workspace) -> None:
    ws.put("real.txt", "value 1\n")
    os.symlink("real.txt", ws.file("link.txt"))
    expect_edited(
        edit(tools, "link.txt", old_string="1", new_string="2"), ws, "real.txt", b"value 2\n"
    )
    assert os.path.islink(ws.file("link.txt")), "the link was replaced by a file"
    assert os.readlink(ws.file("link.txt")) == "real.txt"


#: edits fired at once; each rewrites a file big enough that an unlocked read-modify-write
#: overlaps another (EDIT-QUEUE-01 fails an implementation without a per-file lock every run)
RACERS = 24
RACE_FILLER = ("x" * 127 + "\n") * 16_384


@clause("EDIT-QUEUE-01")
def test_concurrent_edits_through_aliases(tools: ToolClient, ws: Workspace) -> None:
    slots = "".join(f"slot{i:02d}\n" for i in range(RACERS))
    ws.put("dir/f.txt", slots + RACE_FILLER)
    os.symlink("dir/f.txt", ws.file("alias.txt"))
    spellings = [
        "dir/f.txt",
        "./dir/f.txt",
        str(ws.file("dir/f.txt")),
        "dir/../dir/f.txt",
        "alias.txt",
    ]
    pending = [
        tools.submit(
            "edit",
            file_path=spellings[i % len(spellings)],
            old_string=f"slot{i:02d}\n",
            new_string=f"done{i:02d}\n",
        )
        for i in range(RACERS)
    ]
    for call in pending:
        expect_ok(call.result(120))
    expected = "".join(f"done{i:02d}\n" for i in range(RACERS)) + RACE_FILLER
    data = ws.get("dir/f.txt")
    lost = [i for i in range(RACERS) if f"slot{i:02d}\n".encode() in data]
    assert data == expected.encode(), f"edits were lost (slots still unchanged: {lost})"
