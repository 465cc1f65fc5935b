"""The reference's own policy in the helpers every tool shares: how an argument error describes
the value it refuses, what a path check says, which limit settings are taken.

No conformance clause may judge these (the words of an error and the bounds of a preview are the
reference's own, not the spec's), yet a change to them changes what a model reads; these tests
pin them down, and are the kit tests of the ``shared`` mutation group (docs/mutation.md).
"""

from __future__ import annotations

import base64
import math
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.reference_impl import arguments, limits, paths, results
from pytest_agenttools.reference_impl.arguments import Param
from pytest_agenttools.reference_impl.results import ToolError

# ---- arguments: a refused value, in JSON's own words


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (False, "boolean"),
        (0, "integer"),
        (-7, "integer"),
        (1.5, "number"),
        (math.nan, "number"),
        ("", "string"),
        ([], "array"),
        ((1,), "array"),
        ({}, "object"),
        (b"x", "value"),
        (object(), "value"),
    ],
)
def test_json_type(value: Any, name: str) -> None:
    assert arguments.json_type(value) == name


LONG = "x" * arguments.PREVIEW_CHARS


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-12, "-12"),
        (10**39, str(10**39)),
        (-(10**39), str(-(10**39))),
        (10**40, "a number of 41 digits"),
        (-(10**40), "a number of 41 digits"),
        (1.5, "1.5"),
        (-0.25, "-0.25"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        ("", '""'),
        ("a\u00e9\n", '"a\\u00e9\\n"'),
        (LONG, f'"{LONG}"'),
        (LONG + "y", f'"{LONG}..." (41 chars)'),
        ("\ud800" + LONG, f'"\\ud800{LONG[:-1]}..." (41 chars)'),
        ([], "an array of 0 items"),
        ([1], "an array of 1 item"),
        ((1, 2), "an array of 2 items"),
        ({}, "an object with 0 keys"),
        ({"a": 1}, "an object with 1 key"),
        ({"a": 1, "b": 2}, "an object with 2 keys"),
        (b"x", "a value"),
    ],
)
def test_preview(value: Any, shown: str) -> None:
    assert arguments.preview(value) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        ("abc", 'string "abc"'),
        (3, "integer 3"),
        (math.nan, "number NaN"),
        (True, "boolean true"),
        ([1, 2, 3], "an array of 3 items"),
        ({"k": 1}, "an object with 1 key"),
        (10**50, "a number of 51 digits"),
        (b"x", "a value"),
    ],
)
def test_described(value: Any, shown: str) -> None:
    assert arguments.described(value) == shown


@pytest.mark.parametrize(
    ("value", "digits"),
    [(0, 1), (1, 1), (9, 1), (10, 2), (-10, 2), (99, 2), (100, 3), (10**40, 41), (-(10**60), 61)],
)
def test_digits(value: int, digits: int) -> None:
    assert arguments._digits(value) == digits


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        (str, "a string"),
        (int, "an integer"),
        (float, "a number"),
        (bool, "a boolean"),
        (list, "an array"),
        (dict, "an object"),
        ((int, str), "an integer or a string"),
        (bytes, "bytes"),
    ],
)
def test_expected(kind: Any, said: str) -> None:
    assert arguments._expected(kind) == said


def refusal(call: Any, *args: Any) -> str:
    with pytest.raises(ToolError) as caught:
        call(*args)
    assert caught.value.code == "invalid_argument"
    return caught.value.message


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        (Param("limit", int), "2", 'read: limit must be an integer, got string "2".'),
        (Param("limit", int), True, "read: limit must be an integer, got boolean true."),
        (Param("limit", int), 1.5, "read: limit must be an integer, got number 1.5."),
        (Param("flag", bool), 1, "read: flag must be a boolean, got integer 1."),
        (Param("x", (int, str)), [], "read: x must be an integer or a string, got an array of 0 "
         "items."),
        (Param("limit", int), 2**53, f"read: limit is too large: {2**53}; numbers must lie "
         f"between -{2**53 - 1} and {2**53 - 1}."),
        (Param("limit", float), -(2**53), f"read: limit is too large: {-(2**53)}; numbers must "
         f"lie between -{2**53 - 1} and {2**53 - 1}."),
        (Param("limit", float), math.inf, "read: limit must be a finite number, got Infinity."),
        (Param("limit", float), math.nan, "read: limit must be a finite number, got NaN."),
        (Param("path", str), "a\0b", "read: path contains a NUL character (at position 1); a "
         "path, pattern or command cannot hold one. Remove it."),
        (Param("note", str, os_string=True), "ab\udc80", "read: note contains a lone surrogate "
         "(U+DC80 at position 2), which is not a character and cannot be encoded. Send valid "
         "Unicode."),
        (Param("glob", list), ["a", 3], "read: glob must hold strings only, got integer 3 in "
         "the array."),
        (Param("glob", list), ["a", "b\0"], "read: glob contains a NUL character (at position "
         "1); a path, pattern or command cannot hold one. Remove it."),
    ],
)  # fmt: skip
def test_check_value_refuses(param: Param, value: Any, message: str) -> None:
    assert refusal(arguments.check_value, "read", param, value) == message


@pytest.mark.parametrize(
    ("param", "value", "used"),
    [
        (Param("limit", int), 2.0, 2),
        (Param("limit", float), 2, 2),
        (Param("limit", (int, str)), "2", "2"),
        (Param("flag", bool), False, False),
        (Param("limit", int), 2**53 - 1, 2**53 - 1),
        (Param("limit", int), -(2**53 - 1), -(2**53 - 1)),
        # only the names that reach the operating system refuse NUL and lone surrogates
        (Param("content", str), "a\0\ud800", "a\0\ud800"),
        (Param("path", str, os_string=False), "a\0", "a\0"),
        (Param("glob", list), ["*.py", "*.md"], ["*.py", "*.md"]),
        (Param("items", list), [1, None], [1, None]),
    ],
)
def test_check_value_accepts(param: Param, value: Any, used: Any) -> None:
    got = arguments.check_value("read", param, value)
    assert got == used and type(got) is type(used)


@pytest.mark.parametrize("name", sorted(arguments.OS_STRINGS))
def test_every_os_string_name_refuses_nul(name: str) -> None:
    assert "NUL character" in refusal(arguments.check_value, "t", Param(name, str), "\0")


PARAMS = (Param("path", str, required=True), Param("limit", int), Param("offset", int))


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("x", 'read: arguments must be an object, got string "x".'),
        ([1], "read: arguments must be an object, got an array of 1 item."),
        (None, "read: arguments must be an object, got null."),
        ({"path": "a", "lmit": 1}, 'read: unknown argument(s) "lmit". Accepted: path, limit, '
         "offset."),
        ({"path": "a", **{f"k{i}": 1 for i in range(7)}}, 'read: unknown argument(s) "k0", '
         '"k1", "k2", "k3", "k4" and 2 more. Accepted: path, limit, offset.'),
        ({"path": "a", **{f"k{i}": 1 for i in range(5)}}, 'read: unknown argument(s) "k0", '
         '"k1", "k2", "k3", "k4". Accepted: path, limit, offset.'),
        ({"limit": 3}, "read: missing required argument 'path' (a string)."),
        ({"path": None}, "read: missing required argument 'path' (a string)."),
    ],
)  # fmt: skip
def test_check_refuses(given: Any, message: str) -> None:
    assert refusal(arguments.check, "read", PARAMS, given) == message


def test_check_keeps_given_values_and_leaves_out_absent_and_null_ones() -> None:
    checked = arguments.check("read", PARAMS, {"path": "a", "limit": 3.0, "offset": None})
    assert checked == {"path": "a", "limit": 3} and type(checked["limit"]) is int
    assert arguments.check("read", PARAMS, {"path": "a"}) == {"path": "a"}


# ---- paths: what a path check says, and how a path is spelled out


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "path must be a string, got NoneType. Pass the file path as text."),
        (3, "path must be a string, got int. Pass the file path as text."),
        ("", "path is empty. Pass the path of a file."),
        (" \t", "path is empty. Pass the path of a file."),
        ("a\x00b", "path contains a NUL byte, which no file name can hold: 'a\\x00b'. Check "
         "the path for stray characters."),
        ("ab\ud800c", "path holds '\\ud800' at index 2, an unpaired surrogate that names no "
         "file. Check the path for stray characters."),
    ],
)  # fmt: skip
def test_check_raw_says_what_is_wrong(raw: object, message: str) -> None:
    assert refusal(paths.check_raw, raw) == message


def test_check_raw_names_the_argument_and_passes_a_good_path() -> None:
    assert refusal(paths.check_raw, "", "file_path").startswith("file_path is empty.")
    assert paths.check_raw(" a b ") == " a b "


@pytest.mark.parametrize(
    ("path", "joined"),
    [
        ("/", "/"),
        ("//a///b/", "/a/b"),
        ("/a/./b/.", "/a/b"),
        ("/a/b/../c", "/a/c"),
        ("/../a", "/a"),
        ("/a/../../b", "/b"),
        ("/missing/x/../y", "/missing/y"),
    ],
)
def test_physical_join_is_lexical_without_links(path: str, joined: str) -> None:
    assert paths.physical_join(path) == joined


def test_physical_join_climbs_from_a_links_target(tmp_path: Path) -> None:
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    base = str(tmp_path)
    assert paths.physical_join(f"{base}/link/../x") == f"{tmp_path.resolve()}/real/x"
    assert paths.physical_join(f"{base}/link/y") == f"{base}/link/y"


@pytest.mark.parametrize(
    ("raw", "expanded"),
    [
        ("~", "/home/u"),
        ("~/a", "/home/u/a"),
        ("~x/a", "/ws/~x/a"),
        ("a/~", "/ws/a/~"),
        ("file:///a%20b/c", "/a b/c"),
        ("file://rel", "/ws/rel"),
        ("./a/./b", "/ws/a/b"),
    ],
)
def test_expand_spells_out_home_file_urls_and_relative_paths(raw: str, expanded: str) -> None:
    assert paths.expand(raw, "/ws", {"HOME": "/home/u"}) == expanded


def test_expand_without_home_in_env_uses_the_process_home() -> None:
    assert paths.expand("~/a", "/ws", {}) == os.path.expanduser("~") + "/a"


def test_read_candidates_in_order_without_duplicates() -> None:
    raw = "\u00a0@caf\u00e9 at 9.41 AM.png"
    found = paths.read_candidates(raw, "/ws")
    base = " @caf\u00e9 at 9.41 AM.png"  # the special space becomes a plain one; @ stays
    assert found[:3] == [
        f"/ws/{raw}",
        f"/ws/{base}",
        f"/ws/{base.replace(' AM.', chr(0x202F) + 'AM.')}",
    ]
    assert paths.read_candidates("plain.txt", "/ws") == ["/ws/plain.txt"]
    assert paths.read_candidates("@a.txt", "/ws") == ["/ws/@a.txt", "/ws/a.txt"]
    assert paths.read_candidates("it's", "/ws") == ["/ws/it's", "/ws/it\u2019s"]


def test_resolve_for_read_takes_the_first_existing_spelling(tmp_path: Path) -> None:
    ws = str(tmp_path)
    assert paths.resolve_for_read("@a.txt", ws) == (f"{ws}/@a.txt", False)
    (tmp_path / "a.txt").write_text("x")
    assert paths.resolve_for_read("@a.txt", ws) == (f"{ws}/a.txt", True)
    (tmp_path / "@a.txt").write_text("x")
    assert paths.resolve_for_read("@a.txt", ws) == (f"{ws}/@a.txt", False)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert paths.resolve_for_read("dangling", ws) == (f"{ws}/dangling", False)


def test_similar_names(tmp_path: Path) -> None:
    for name in ("config.yaml", "config.yml", "confi.yaml", "settings.toml", "config.json"):
        (tmp_path / name).write_text("")
    found = paths.similar_names(str(tmp_path / "config.yam"))
    assert found == ["config.yaml", "config.yml", "confi.yaml"]
    assert paths.similar_names(str(tmp_path / "config.yam"), limit=1) == ["config.yaml"]
    assert paths.similar_names(str(tmp_path / "zzzzzz")) == []
    assert paths.similar_names(str(tmp_path / "missing-dir" / "config.yaml")) == []


# ---- limits: which settings are taken


def test_declared_limits_carry_a_unit_only_where_it_is_not_the_usual_one() -> None:
    plain = limits.Limits()
    assert plain.declared() == dict(limits.DEFAULT_LIMITS)
    assert plain.unit("read.max_bytes") == "bytes"
    assert plain.unit("read.max_bytes", "lines") == "lines"
    chars = limits.Limits(units={"read.max_bytes": "chars"}, extra_defaults={"x.t": 1.5})
    declared = chars.declared()
    assert declared["read.max_bytes"] == {"value": 51200, "unit": "chars"}
    assert declared["read.max_lines"] == 2000 and declared["x.t"] == 1.5
    assert chars.unit("read.max_bytes") == "chars"


def test_settings_applied_and_ignored() -> None:
    live = limits.Limits(
        overrides={"read.max_lines": 5}, extra_defaults={"bash.max_timeout_s": 600.0}
    )
    assert live["read.max_lines"] == 5
    applied = live.apply(
        {
            "read.max_bytes": 10,
            "read.max_line_chars": 0,
            "read.pdf_max_pages": -1,
            "read.max_image_bytes": True,
            "read.notebook_max_bytes": 2.5,
            "write.patch_max_bytes": limits.MAX_SETTING + 1,
            "write.diff_max_old_bytes": math.nan,
            "no.such": 3,
            "bash.max_timeout_s": 0,
        }
    )
    assert applied == {"read.max_bytes": 10, "bash.max_timeout_s": 0.0}
    assert type(live["bash.max_timeout_s"]) is float
    assert live.apply({"bash.max_timeout_s": 2}) == {"bash.max_timeout_s": 2.0}
    assert live.apply({"read.pdf_max_pages": limits.MAX_SETTING}) == {
        "read.pdf_max_pages": limits.MAX_SETTING
    }
    assert live.as_dict()["read.max_bytes"] == 10 and live.as_dict() is not live.as_dict()


# ---- results: the MCP shape every tool answers in


def test_results_in_the_mcp_shape() -> None:
    assert results.text_result("hi", lines=2) == {
        "content": [{"type": "text", "text": "hi"}],
        "isError": False,
        "details": {"lines": 2},
    }
    assert results.error_result("not_found", "gone", path="/a") == {
        "content": [{"type": "text", "text": "gone"}],
        "isError": True,
        "details": {"error": "not_found", "path": "/a"},
    }
    assert results.image_block(b"\x89PNG", "image/png") == {
        "type": "image",
        "data": base64.b64encode(b"\x89PNG").decode(),
        "mimeType": "image/png",
    }
    assert results.text_block("t") == {"type": "text", "text": "t"}
    error = ToolError("too_large", "cut it", limit=3)
    assert (error.code, error.message, error.details, str(error)) == (
        "too_large",
        "cut it",
        {"limit": 3},
        "cut it",
    )
