"""edit: arguments, errors, exact and literal replacement, endings, encodings, fuzzy, multi-edit."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from typing import Any

import pytest

from pytest_agenttools.assertions import apply_unified_patch, expect_error, expect_ok
from pytest_agenttools.markers import clause, feature

BOM = b"\xef\xbb\xbf"


def edit(tools: Any, path: str = "f.txt", **arguments: Any) -> Any:
    return tools.call("edit", file_path=path, **arguments)


def unchanged(ws: Any, name: str, before: bytes) -> None:
    assert ws.get(name) == before, "a failed edit changed the file"


@clause("EDIT-ARG-01")
@pytest.mark.parametrize(
    ("arguments", "mention"),
    [
        ({"old_string": "a", "new_string": "b"}, "file_path"),
        ({"file_path": "f.txt", "new_string": "b"}, "old_string"),
        ({"file_path": "f.txt", "old_string": "a"}, "new_string"),
        ({"file_path": "f.txt", "old_string": 1, "new_string": "b"}, "old_string"),
        ({"file_path": "f.txt", "old_string": "a", "new_string": None}, "new_string"),
        ({"file_path": 3, "old_string": "a", "new_string": "b"}, "file_path"),
        (
            {"file_path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"},
            "replace_all",
        ),
    ],
    ids=["no-path", "no-old", "no-new", "old-int", "new-null", "path-int", "replace-all-str"],
)
def test_bad_arguments(tools: Any, ws: Any, arguments: dict[str, Any], mention: str) -> None:
    ws.put("f.txt", "a a\n")
    expect_error(tools.call("edit", **arguments), mention)
    unchanged(ws, "f.txt", b"a a\n")


@clause("EDIT-ARG-01")
@feature("edit.multi")
def test_edits_and_old_string_together(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "a\n")
    result = edit(
        tools, old_string="a", new_string="b", edits=[{"old_string": "a", "new_string": "c"}]
    )
    expect_error(result)
    unchanged(ws, "f.txt", b"a\n")


@clause("EDIT-NF-01")
def test_missing_file(tools: Any, ws: Any) -> None:
    expect_error(edit(tools, "nope.txt", old_string="a", new_string="b"), "nope.txt")
    assert ws.files() == []


@clause("EDIT-NF-01")
def test_directory(tools: Any, ws: Any) -> None:
    (ws.root / "d").mkdir()
    expect_error(edit(tools, "d", old_string="a", new_string="b"), "d")


@clause("EDIT-BIN-01")
def test_binary_refused(tools: Any, ws: Any) -> None:
    data = b"head\x00\x01\x02 text tail\n"
    ws.put("b.bin", data)
    expect_error(edit(tools, "b.bin", old_string="text", new_string="TEXT"))
    unchanged(ws, "b.bin", data)


@clause("EDIT-EMPTY-01")
def test_empty_old_string(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "abc\n")
    expect_error(edit(tools, old_string="", new_string="x"), "empty")
    unchanged(ws, "f.txt", b"abc\n")


@clause("EDIT-NOCHANGE-01")
def test_identical_strings(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "abc\n")
    before = os.stat(ws.file("f.txt")).st_ino
    result = edit(tools, old_string="abc", new_string="abc")
    expect_error(result)
    assert "identical" in result.text.lower() or "change" in result.text.lower()
    unchanged(ws, "f.txt", b"abc\n")
    assert os.stat(ws.file("f.txt")).st_ino == before, "the file was rewritten"


@clause("EDIT-NOTFOUND-01")
def test_not_found(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "one\ntwo\n")
    expect_error(edit(tools, old_string="three", new_string="3"), "read")
    unchanged(ws, "f.txt", b"one\ntwo\n")


@clause("EDIT-EXACT-01")
def test_exact_unique_replacement(tools: Any, ws: Any) -> None:
    before = "keep  \t \nfn old_name() {}\n“quotes” – stay\n"
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string="old_name", new_string="new_name"))
    assert ws.get("f.txt") == before.replace("old_name", "new_name").encode()


@clause("EDIT-EXACT-01")
def test_multiline_exact(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "a\nb\nc\nd\n")
    expect_ok(edit(tools, old_string="b\nc", new_string="B\nX\nC"))
    assert ws.get("f.txt") == b"a\nB\nX\nC\nd\n"


@clause("EDIT-EXACT-01")
def test_delete_with_empty_new_string(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "a\nremove me\nb\n")
    expect_ok(edit(tools, old_string="remove me\n", new_string=""))
    assert ws.get("f.txt") == b"a\nb\n"


@clause("EDIT-UNIQ-01")
def test_several_matches_listed(tools: Any, ws: Any) -> None:
    text = "x\ndup\nx\ndup\nx\nx\ndup\n"
    ws.put("f.txt", text)
    result = expect_error(edit(tools, old_string="dup", new_string="one"), "3")
    for line in ("2", "4", "7"):
        assert line in result.text, f"the error should list line {line}: {result.text!r}"
    unchanged(ws, "f.txt", text.encode())


LITERALS = ["$&", "$$", "$`", "$'", "$1", "\\1", "\\g<0>", "\\\\n", "${name}", "$0$&$$"]


@clause("EDIT-LIT-01")
@pytest.mark.parametrize("replacement", LITERALS)
def test_replacement_is_literal(tools: Any, ws: Any, replacement: str) -> None:
    ws.put("f.txt", "price: OLD;\n")
    expect_ok(edit(tools, old_string="OLD", new_string=replacement))
    assert ws.get("f.txt") == f"price: {replacement};\n".encode()


@clause("EDIT-RA-01")
def test_replace_all_counts(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "foo bar foo\nfoofoo\n")
    result = expect_ok(edit(tools, old_string="foo", new_string="baz", replace_all=True))
    assert ws.get("f.txt") == b"baz bar baz\nbazbaz\n"
    assert "4" in result.text, f"the result should say 4 replacements: {result.text!r}"


@clause("EDIT-RA-01")
def test_replace_all_non_overlapping(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "aaaa\n")
    expect_ok(edit(tools, old_string="aa", new_string="b", replace_all=True))
    assert ws.get("f.txt") == b"bb\n"


@clause("EDIT-RA-02")
@pytest.mark.parametrize("replacement", LITERALS)
def test_replace_all_is_literal(tools: Any, ws: Any, replacement: str) -> None:
    ws.put("f.txt", "X-X\nX\n")
    expect_ok(edit(tools, old_string="X", new_string=replacement, replace_all=True))
    expected = f"{replacement}-{replacement}\n{replacement}\n"
    assert ws.get("f.txt") == expected.encode()


@clause("EDIT-EOL-01")
def test_crlf_file(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"a\r\nb\r\nc\r\n")
    expect_ok(edit(tools, old_string="a\nb", new_string="x\ny\nz"))
    assert ws.get("f.txt") == b"x\r\ny\r\nz\r\nc\r\n"


@clause("EDIT-EOL-01")
def test_crlf_old_string_also_matches(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"a\r\nb\r\n")
    expect_ok(edit(tools, old_string="a\r\nb", new_string="B"))
    assert ws.get("f.txt") == b"B\r\n"


@clause("EDIT-EOL-02")
def test_mixed_endings_outside_span(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"l1\r\nl2\nl3\r\nl4\n")
    expect_ok(edit(tools, old_string="l3", new_string="A\nB"))
    assert ws.get("f.txt") == b"l1\r\nl2\nA\r\nB\r\nl4\n"


@clause("EDIT-EOL-02")
def test_mixed_endings_lf_first(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"l1\nl2\r\nl3\nl4\r\n")
    expect_ok(edit(tools, old_string="l1", new_string="A\nB"))
    assert ws.get("f.txt") == b"A\nB\nl2\r\nl3\nl4\r\n"


@clause("EDIT-EOL-03")
def test_lone_cr_file(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"one\rtwo\rthree\r")
    expect_ok(edit(tools, old_string="one\ntwo", new_string="1\n2"))
    assert ws.get("f.txt") == b"1\r2\rthree\r"


@clause("EDIT-BOM-01")
def test_bom_kept(tools: Any, ws: Any) -> None:
    ws.put("f.txt", BOM + b"first line\nsecond\n")
    expect_ok(edit(tools, old_string="first", new_string="1st"))
    assert ws.get("f.txt") == BOM + b"1st line\nsecond\n"


@clause("EDIT-BOM-01")
def test_bom_and_crlf(tools: Any, ws: Any) -> None:
    ws.put("f.txt", BOM + b"a\r\nb\r\n")
    expect_ok(edit(tools, old_string="a\nb", new_string="c\nd"))
    assert ws.get("f.txt") == BOM + b"c\r\nd\r\n"


@clause("EDIT-ENC-01")
def test_utf16le_kept(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le"))
    expect_ok(edit(tools, old_string="wörld", new_string="wêlt"))
    assert ws.get("f.txt") == b"\xff\xfe" + "héllo\r\nwêlt\r\n".encode("utf-16-le")


@clause("EDIT-ENC-02")
def test_latin1_bytes_kept(tools: Any, ws: Any) -> None:
    ws.put("f.txt", b"caf\xe9 cr\xe8me\nline two\n")
    expect_ok(edit(tools, old_string="line two", new_string="LINE 2"))
    assert ws.get("f.txt") == b"caf\xe9 cr\xe8me\nLINE 2\n"


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
def test_fuzzy_locates(tools: Any, ws: Any, case: str) -> None:
    before, old, new, after = FUZZY_CASES[case]
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string=old, new_string=new))
    assert ws.get("f.txt").decode() == after


@clause("EDIT-FUZZ-02")
def test_fuzzy_edit_touches_only_its_span(tools: Any, ws: Any) -> None:
    before = "title = “Doc” \u00a0\nsep — here   \nvalue = “x”\nend ‘q’ – \u3000\n"
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string='value = "x"', new_string='value = "y"'))
    after = before.replace("value = “x”", 'value = "y"')
    assert ws.get("f.txt") == after.encode(), "bytes outside the fuzzy span changed"


@clause("EDIT-FUZZ-03")
def test_exact_preferred_over_fuzzy(tools: Any, ws: Any) -> None:
    before = 'x = "a"\ny = 1\nx = “a”\n'
    ws.put("f.txt", before)
    expect_ok(edit(tools, old_string='x = "a"', new_string='x = "b"'))
    assert ws.get("f.txt") == 'x = "b"\ny = 1\nx = “a”\n'.encode()


@clause("EDIT-FUZZ-04")
def test_duplicates_after_normalisation(tools: Any, ws: Any) -> None:
    before = "q = “a”\nr = 1\nq = ‟a”\n"
    ws.put("f.txt", before)
    result = expect_error(edit(tools, old_string='q = "a"', new_string="q = 2"))
    assert "1" in result.text and "3" in result.text, f"list the lines: {result.text!r}"
    unchanged(ws, "f.txt", before.encode())


@clause("EDIT-FUZZ-05")
def test_disproportionate_fuzzy_refused(tools: Any, ws: Any) -> None:
    before = "a" + " " * 1000 + "\nb\n"
    ws.put("f.txt", before)
    expect_error(edit(tools, old_string="a\nb", new_string="c"))
    unchanged(ws, "f.txt", before.encode())


@clause("EDIT-MULTI-01")
def test_edits_match_the_original(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "alpha beta\n")
    expect_ok(
        edit(
            tools,
            edits=[
                {"old_string": "alpha", "new_string": "beta"},
                {"old_string": "beta", "new_string": "gamma"},
            ],
        )
    )
    assert ws.get("f.txt") == b"beta gamma\n"


@clause("EDIT-MULTI-01")
def test_edit_order_does_not_matter(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "one\ntwo\nthree\n")
    expect_ok(
        edit(
            tools,
            edits=[
                {"old_string": "three", "new_string": "3"},
                {"old_string": "one", "new_string": "1"},
            ],
        )
    )
    assert ws.get("f.txt") == b"1\ntwo\n3\n"


@clause("EDIT-MULTI-02")
def test_overlapping_edits(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "abcdef\n")
    result = expect_error(
        edit(
            tools,
            edits=[
                {"old_string": "abc", "new_string": "1"},
                {"old_string": "cde", "new_string": "2"},
            ],
        )
    )
    assert "0" in result.text and "1" in result.text, f"name both edits: {result.text!r}"
    unchanged(ws, "f.txt", b"abcdef\n")


@clause("EDIT-MULTI-03")
@pytest.mark.parametrize(
    "second",
    [{"old_string": "missing", "new_string": "x"}, {"old_string": "o", "new_string": "0"}],
    ids=["not-found", "ambiguous"],
)
def test_all_or_nothing(tools: Any, ws: Any, second: dict[str, str]) -> None:
    ws.put("f.txt", "one two\n")
    expect_error(edit(tools, edits=[{"old_string": "one", "new_string": "1"}, second]))
    unchanged(ws, "f.txt", b"one two\n")


@clause("EDIT-MULTI-03")
def test_chained_edit_is_not_found(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "x\n")
    expect_error(
        edit(
            tools,
            edits=[{"old_string": "x", "new_string": "y"}, {"old_string": "y", "new_string": "z"}],
        )
    )
    unchanged(ws, "f.txt", b"x\n")


@clause("EDIT-LN-01")
@pytest.mark.parametrize("sep", ["\u2192", "\t"], ids=["arrow", "tab"])
def test_line_number_prefixes_stripped(tools: Any, ws: Any, sep: str) -> None:
    ws.put("f.txt", "one\ntwo\nthree\n")
    result = edit(
        tools,
        old_string=f"     2{sep}two\n     3{sep}three",
        new_string=f"     2{sep}TWO\n     3{sep}THREE",
    )
    expect_ok(result)
    assert ws.get("f.txt") == b"one\nTWO\nTHREE\n"


@clause("EDIT-LN-01")
def test_partial_prefixes_are_not_stripped(tools: Any, ws: Any) -> None:
    ws.put("f.txt", "one\ntwo\nthree\n")
    expect_error(edit(tools, old_string="     2\u2192two\nthree", new_string="x"))
    unchanged(ws, "f.txt", b"one\ntwo\nthree\n")


@clause("EDIT-DETAILS-01")
@pytest.mark.parametrize(
    ("before", "old", "new"),
    [
        ("a\nb\nc\nd\ne\nf\ng\nh\n", "e", "E\nE2"),
        ("x = 1\r\ny = 2\r\n", "y = 2", "y = 3"),
        ("no newline at end", "end", "END"),
    ],
    ids=["lf", "crlf", "no-eol"],
)
def test_patch_applies_with_patch_p0(tools: Any, ws: Any, before: str, old: str, new: str) -> None:
    ws.put("sub/f.txt", before.encode())
    result = expect_ok(edit(tools, "sub/f.txt", old_string=old, new_string=new))
    patch = result.details.get("patch")
    assert isinstance(patch, str) and patch, "details.patch is missing"
    after = ws.get("sub/f.txt")
    scratch = ws.subdir()
    scratch.put("sub/f.txt", before.encode())
    if shutil.which("patch"):
        proc = subprocess.run(
            ["patch", "-p0", "--quiet", "--batch"],
            input=patch.encode(),
            cwd=scratch.root,
            capture_output=True,
            timeout=30,
        )
        assert proc.returncode == 0, f"patch -p0 failed: {proc.stdout!r} {proc.stderr!r}"
        assert scratch.get("sub/f.txt") == after, "patch -p0 does not reproduce the new file"
    else:
        assert apply_unified_patch(before, patch).encode() == after
    first = result.details.get("firstChangedLine")
    old_lines, new_lines = before.split("\n"), after.decode().replace("\r", "").split("\n")
    expected = next(
        i
        for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False), 1)
        if a.replace("\r", "") != b
    )
    assert first == expected


@clause("EDIT-KEEP-01")
def test_mode_kept(tools: Any, ws: Any) -> None:
    target = ws.put("run.sh", "#!/bin/sh\necho a\n")
    os.chmod(target, 0o750)
    expect_ok(edit(tools, "run.sh", old_string="echo a", new_string="echo b"))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    assert ws.get("run.sh") == b"#!/bin/sh\necho b\n"


@clause("EDIT-KEEP-01")
def test_edit_through_symlink(tools: Any, ws: Any) -> None:
    ws.put("real.txt", "value 1\n")
    os.symlink("real.txt", ws.file("link.txt"))
    expect_ok(edit(tools, "link.txt", old_string="1", new_string="2"))
    assert os.path.islink(ws.file("link.txt")) and ws.get("real.txt") == b"value 2\n"


@clause("EDIT-QUEUE-01")
def test_concurrent_edits_through_aliases(tools: Any, ws: Any) -> None:
    count = 15
    ws.put("dir/f.txt", "".join(f"slot{i:02d}\n" for i in range(count)))
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
            old_string=f"slot{i:02d}",
            new_string=f"done{i:02d}",
        )
        for i in range(count)
    ]
    for call in pending:
        expect_ok(call.result(60))
    assert ws.get("dir/f.txt") == "".join(f"done{i:02d}\n" for i in range(count)).encode(), (
        "an edit was lost: the file is " + repr(ws.get("dir/f.txt"))
    )
