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
import signal
import stat
import subprocess
import threading
import unicodedata
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools.implementations.reference import (
    arguments,
    fsport,
    limits,
    paths,
    results,
    toolbox,
)
from pytest_agenttools.implementations.reference import bash as bash_module
from pytest_agenttools.implementations.reference import edit as edit_module
from pytest_agenttools.implementations.reference import read as read_module
from pytest_agenttools.implementations.reference.arguments import Param
from pytest_agenttools.implementations.reference.definition import ToolDefinition
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.results import ToolError

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


def refusal(call: Any, *args: Any, code: str = "invalid_argument", path: str | None = None) -> str:
    """The message of the ToolError ``call(*args)`` raises; with ``path``, its details name it."""
    with pytest.raises(ToolError) as caught:
        call(*args)
    assert caught.value.code == code
    if path is not None:
        assert caught.value.details == {"path": path}
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
        ("file:///etc/x%20y", "/etc/x y"),
        ("a/../b", "/ws/b"),
        ("/abs", "/abs"),
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
    # an apostrophe and an accent: the curly spelling, composed and decomposed, each its own
    nfd = unicodedata.normalize
    assert paths.read_candidates("caf\u00e9's", "/ws") == [
        "/ws/caf\u00e9's",
        "/ws/" + nfd("NFD", "caf\u00e9's"),
        "/ws/caf\u00e9\u2019s",
        "/ws/" + nfd("NFD", "caf\u00e9\u2019s"),
    ]


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
    # the smallest settings: one line, half a second
    assert live.apply({"read.max_lines": 1, "bash.max_timeout_s": 0.5}) == {
        "read.max_lines": 1,
        "bash.max_timeout_s": 0.5,
    }
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


# ---- toolbox: what a call that went wrong answers, and what an instance is made of


def failing(exc: BaseException) -> Any:
    def run(arguments: Any, ctx: Any) -> dict[str, Any]:
        raise exc

    return run


def answer(tool: str, exc: BaseException, tmp_path: Path) -> dict[str, Any]:
    return toolbox.ReferenceTools(runs={tool: failing(exc)}).call(tool, {}, str(tmp_path))


def text(result: dict[str, Any]) -> str:
    assert result["isError"] is True
    return str(result["content"][0]["text"])


def test_a_missing_file_is_not_found_with_the_tools_refused_details(tmp_path: Path) -> None:
    found = answer("read", FileNotFoundError(2, "No such file or directory", "/a/b"), tmp_path)
    assert text(found) == "File not found: /a/b."
    assert found["details"] == {"error": "not_found"}
    bash = answer("bash", FileNotFoundError(2, "No such file", "/x"), tmp_path)
    assert bash["details"] == {"error": "not_found", **bash_module.REFUSED}


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (PermissionError(13, "Permission denied", "/etc/x"), "read: Permission denied: /etc/x."),
        (OSError(28, "No space left on device"), "read: No space left on device."),
        (OSError("odd"), "read: the operating system refused the operation."),
        (IsADirectoryError(21, "Is a directory", b"/d\xff"), "read: Is a directory: /d\ufffd."),
        (OSError(5, "I/O error", 7), "read: I/O error: (unknown path)."),
        (OSError(36, "File name too long", "n" * 300), f"read: File name too long: {'n' * 300}."),
        (
            OSError(36, "File name too long", "n" * 301),
            f'read: File name too long: "{"n" * 40}..." (301 chars).',
        ),
        (FileNotFoundError(2, "No such file"), "File not found: (unknown path)."),
    ],
)
def test_an_os_error_says_what_the_system_refused(exc: OSError, said: str, tmp_path: Path) -> None:
    result = answer("read", exc, tmp_path)
    assert text(result) == said
    assert result["details"]["error"] in ("os_error", "not_found")


INTERNAL = (
    "{tool}: internal error; the tool failed unexpectedly and did not complete this call. This "
    "is a defect of the tool, not of the call; a different call may work."
)


def test_an_unexpected_exception_is_an_internal_error_with_its_trace(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("ERROR", logger="agenttools.reference"):
        result = answer("bash", RuntimeError("boom"), tmp_path)
    assert text(result) == INTERNAL.format(tool="bash")
    details = result["details"]
    assert details["error"] == "internal" and "RuntimeError: boom" in details["traceback"]
    assert details["observation"] == bash_module.REFUSED["observation"]
    assert [r.getMessage() for r in caplog.records] == ["internal error in bash"]
    assert logged_with_trace(caplog.records[0], RuntimeError)


def logged_with_trace(record: Any, kind: type[BaseException]) -> bool:
    info = record.exc_info
    return isinstance(info, tuple) and info[0] is kind


def test_the_trace_of_an_internal_error_keeps_its_last_eight_frames(tmp_path: Path) -> None:
    # two functions in turn: python folds a frame repeated on end into one line
    def deep(arguments: Any, ctx: Any, depth: int = 30) -> dict[str, Any]:
        if depth:
            return deeper(arguments, ctx, depth - 1)
        raise RuntimeError("deep")

    def deeper(arguments: Any, ctx: Any, depth: int) -> dict[str, Any]:
        return deep(arguments, ctx, depth)

    result = toolbox.ReferenceTools(runs={"read": deep}).call("read", {}, str(tmp_path))
    trace = result["details"]["traceback"]
    assert trace.count('  File "') == 8 and trace.rstrip().endswith("RuntimeError: deep")


def test_a_tool_whose_module_is_missing_is_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    modules = ("read", "no_such_tool_module", "write")
    monkeypatch.setattr(toolbox, "TOOL_MODULES", modules)
    assert sorted(toolbox.ReferenceTools().tools) == ["read", "write"]


def test_a_module_whose_tools_are_not_definitions_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(read_module, "TOOLS", ({"name": "read"},))
    with pytest.raises(
        TypeError, match=r"reference\.read\.TOOLS must be a tuple of ToolDefinition"
    ):
        toolbox.load_tools()


def test_features_of_modules_without_any(tmp_path: Path) -> None:
    tools = toolbox.ReferenceTools()
    bare = ToolDefinition("bare", read_module.run)
    tools.definitions = {"bare": bare, "read": read_module.TOOLS[0]}
    assert tools.features() == sorted([*read_module.FEATURES, *tools.confinement.features()])


def test_features_are_worked_out_once_per_instance(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every call's context carries the features: on a machine without a sandbox, confinement
    says why once, not once per call."""
    tools = toolbox.ReferenceTools()
    tools.confinement.sandbox.problem = "bwrap (bubblewrap) is not installed"  # a cached value
    (tmp_path / "f.txt").write_text("x\n")
    with caplog.at_level("WARNING", logger="agenttools.reference"):
        for _ in range(3):
            assert not tools.call("read", {"path": "f.txt"}, str(tmp_path))["isError"]
        assert "confine.bash" not in tools.features()
    warned = [r for r in caplog.records if "confine.bash is not declared" in r.getMessage()]
    assert len(warned) == 1


def test_a_failing_presentation_is_an_internal_error(tmp_path: Path) -> None:
    class Rewords(toolbox.ReferenceTools):
        def present(self, tool: str, arguments: Any, cwd: str, result: Any) -> Any:
            raise ValueError("cannot present")

    result = Rewords().call("read", {"path": "x"}, str(tmp_path))
    assert text(result) == INTERNAL.format(tool="read")
    assert "ValueError: cannot present" in result["details"]["traceback"]


def test_a_bad_cwd_carries_the_tools_refused_details(tmp_path: Path) -> None:
    tools = toolbox.ReferenceTools()
    result = tools.call("bash", {"command": "true"}, str(tmp_path / "gone"))
    assert result["details"] == {"error": "invalid_cwd", **bash_module.REFUSED}
    assert tools.call("read", {"path": "x"}, "rel")["details"] == {"error": "invalid_cwd"}


def test_an_instance_is_made_of_what_it_is_given(tmp_path: Path) -> None:
    queue = MutationQueue()
    ops = object()
    tools = toolbox.ReferenceTools(
        {"read.max_lines": 7},
        ops={"write": ops},
        runs={"read": failing(RuntimeError())},
        queue=queue,
        units={"read.max_bytes": "chars"},
    )
    assert tools.queue is queue and tools.ops["write"] is ops
    assert tools.ops["edit"] is edit_module.OPS and "read" in tools.ops
    assert tools.limits["read.max_lines"] == 7
    assert tools.limits["bash.max_timeout_s"] == bash_module.LIMITS["bash.max_timeout_s"]
    assert tools.limits.unit("read.max_bytes") == "chars"
    assert text(tools.call("read", {}, str(tmp_path))).startswith("read: internal error")
    assert tools._refused == {"bash": bash_module.REFUSED, "task_output": bash_module.REFUSED}
    plain = toolbox.ReferenceTools()
    assert plain.queue is not queue and isinstance(plain.queue, MutationQueue)
    assert sorted(plain.tools) == sorted([*toolbox.TOOL_MODULES, "task_output"])
    assert plain.ops["task_output"] is bash_module.OPS, "task_output shares bash's port"


def test_the_manifest_names_every_tool_feature_and_limit() -> None:
    tools = toolbox.ReferenceTools()
    features = sorted(
        {f for m in (read_module, edit_module, bash_module) for f in m.FEATURES}
        | set(toolbox.importlib.import_module(f"{toolbox.__package__}.grep").FEATURES)
        | set(toolbox.importlib.import_module(f"{toolbox.__package__}.glob").FEATURES)
        | set(toolbox.importlib.import_module(f"{toolbox.__package__}.write").FEATURES)
        | set(tools.confinement.features())
    )
    assert tools.features() == features
    manifest = tools.manifest()
    assert manifest == {
        "name": "agenttools-reference",
        "version": toolbox.VERSION,
        "protocol": "agenttools/2",
        "spec_version": toolbox.SPEC_VERSION,
        "tools": sorted([*toolbox.TOOL_MODULES, "task_output"]),
        "features": features,
        "output": {"line_numbers": "arrow", "profile": "agenttools-reference/1"},
        "limits": tools.limits.declared(),
        "settings": sorted([*tools.limits.as_dict(), "confine.roots", "bash.session_env"]),
        "dialect": {
            "session_env": {"session_id": "AGENT_SESSION_ID", "session_file": "AGENT_SESSION_FILE"}
        },
    }
    assert tools.initialize({"anything": 1}) == {
        "name": "agenttools-reference",
        "version": toolbox.VERSION,
        "protocol": "agenttools/2",
        "manifest": manifest,
        "notes": tools.confinement.notes(),
    }


def test_shutdown_stops_every_tool_even_when_one_fails(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped: list[str] = []

    def tool(name: str, fails: bool | None) -> tuple[str, ToolDefinition]:
        def shutdown(services: dict[str, Any]) -> None:
            stopped.append(name)
            if fails:
                raise RuntimeError(name)

        stop = shutdown if fails is not None else None
        return name, ToolDefinition(name, read_module.run, shutdown=stop)

    tools = toolbox.ReferenceTools()
    tools.definitions = dict(
        [tool("first", True), tool("no_shutdown", None), tool("second", False)]
    )
    closed: list[bool] = []

    def close() -> int:
        closed.append(True)
        return 0

    monkeypatch.setattr(tools.queue, "close", close)
    with caplog.at_level("ERROR", logger="agenttools.reference"):
        tools.shutdown()
    assert stopped == ["first", "second"] and closed == [True]
    assert [r.getMessage() for r in caplog.records] == ["shutdown of first failed"]
    assert logged_with_trace(caplog.records[0], RuntimeError)

    def broken_close() -> int:
        raise OSError("gone")

    monkeypatch.setattr(tools.queue, "close", broken_close)
    caplog.clear()
    tools.definitions = {}
    with caplog.at_level("ERROR", logger="agenttools.reference"):
        tools.shutdown()
    assert [r.getMessage() for r in caplog.records] == ["sweeping temp files at shutdown failed"]
    assert logged_with_trace(caplog.records[0], OSError)


def test_shutdown_sweeps_the_temp_files_of_this_instances_writes(tmp_path: Path) -> None:
    tools = toolbox.ReferenceTools()
    assert not tools.call("write", {"path": "a.txt", "content": "x"}, str(tmp_path))["isError"]
    leftover = tmp_path / f".a.txt.agenttools-{os.getpid()}-{fsport._own_token()[1]}-00ff.tmp"
    leftover.write_text("half")
    tools.shutdown()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


# ---- fsport: opening for read, the umask, a temp file's writer


def test_open_for_read_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    message = refusal(fsport.open_for_read, str(fifo), code="not_regular_file", path=str(fifo))
    assert message == f"{fifo} is not a regular file; refusing to read it."
    assert refusal(fsport.open_for_read, str(tmp_path), code="not_regular_file").endswith(
        "is not a regular file; refusing to read it."
    )
    fd = fsport.open_for_read("/dev/null")
    try:
        assert os.get_blocking(fd)
    finally:
        os.close(fd)


def test_open_for_read_gives_a_blocking_descriptor_of_the_file(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"data")
    fd = fsport.open_for_read(str(target))
    try:
        assert os.get_blocking(fd) and os.read(fd, 10) == b"data"
        assert not os.get_inheritable(fd)
    finally:
        os.close(fd)


def test_open_for_read_says_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "secret"
    target.write_text("x")

    def refuse(path: str, flags: int) -> int:  # what a file of mode 000 gets, even as root
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(fsport.os, "open", refuse)
    with pytest.raises(ToolError) as caught:
        fsport.open_for_read(str(target))
    assert caught.value.code == "permission_denied"
    said = f"Permission denied: cannot read {target}. Check its permissions."
    assert caught.value.message == said
    assert caught.value.details == {"path": str(target)}


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0])
def test_current_umask_reads_the_process_umask(mask: int) -> None:
    before = os.umask(mask)
    try:
        assert fsport.current_umask() == mask
    finally:
        os.umask(before)


def test_current_umask_without_proc_is_the_usual_default(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open

    def no_proc(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == "/proc/self/status":
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_proc)
    assert fsport.current_umask() == 0o022


def test_writer_alive_tells_a_live_writer_from_a_dead_or_reused_pid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pid, start = fsport._own_token()
    assert fsport.writer_alive(pid, start)
    assert fsport.writer_alive(pid, 0), "no start time: a live pid counts"
    assert not fsport.writer_alive(pid, start + 1), "the pid was reused by another process"
    child = subprocess.Popen(["true"])
    child.wait()
    assert not fsport.writer_alive(child.pid, 0)
    # without /proc: a signal 0 says whether the pid lives, and does nothing to it
    monkeypatch.setattr(fsport.os.path, "isdir", lambda path: False)
    live = subprocess.Popen(
        ["sleep", "30"], preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL)
    )
    try:
        assert fsport.writer_alive(live.pid, start + 1)
        with pytest.raises(subprocess.TimeoutExpired):  # a signal would have ended it
            live.wait(0.5)
    finally:
        live.kill()
        live.wait()
    assert not fsport.writer_alive(child.pid, start)

    def not_ours(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(fsport.os, "kill", not_ours)
    assert fsport.writer_alive(1, 0), "a pid that lives but is not ours to signal counts"


@pytest.mark.parametrize(
    ("path", "hops"),
    [
        ("/dev/stdin", ["/dev/stdin", "/proc/self/fd/0"]),
        ("/etc/hostname", ["/etc/hostname"]),
    ],
)
def test_link_chain_follows_every_hop(path: str, hops: list[str]) -> None:
    assert fsport.link_chain(path)[: len(hops)] == hops


def test_link_chain_of_a_name_no_file_can_have() -> None:
    assert fsport.link_chain("/tmp/a\0b") == ["/tmp/a\0b"]


def test_link_chain_of_links_in_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "b").symlink_to("real")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    a, b, real = (str(tmp_path / n) for n in ("a", "b", "real"))
    assert fsport.link_chain(a) == [a, b, real]
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    loop1, loop2 = str(tmp_path / "loop1"), str(tmp_path / "loop2")
    assert fsport.link_chain(loop1) == [loop1, loop2]
    # a chain longer than the hops it follows still ends at the real file
    previous = "real"
    for index in range(fsport.MAX_LINK_HOPS + 5):
        (tmp_path / f"l{index}").symlink_to(previous)
        previous = f"l{index}"
    chain = fsport.link_chain(str(tmp_path / previous))
    assert len(chain) == fsport.MAX_LINK_HOPS + 2 and chain[-1] == real


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/dev/zero", "Refusing to read /dev/zero: a device that never ends. Read a regular "
         "file instead."),
        ("/dev/tty", "Refusing to read /dev/tty: a standard stream or terminal; reading it "
         "would wait for input or consume this tool's own channel. Read a regular file "
         "instead."),
        ("/proc/self/fd/1", "Refusing to read /proc/self/fd/1: a standard stream or terminal; "
         "reading it would wait for input or consume this tool's own channel. Read a regular "
         "file instead."),
    ],
)  # fmt: skip
def test_refuse_device_says_why(path: str, message: str) -> None:
    assert refusal(fsport.refuse_device, path, code="device", path=path) == message


def test_refuse_device_names_the_device_a_link_leads_to(tmp_path: Path) -> None:
    (tmp_path / "z").symlink_to("/dev/zero")
    link = str(tmp_path / "z")
    assert refusal(fsport.refuse_device, link, code="device", path=link) == (
        f"Refusing to read {link} (it leads to /dev/zero): a device that never ends. Read a "
        "regular file instead."
    )
    (tmp_path / "plain").write_text("x")
    fsport.refuse_device(str(tmp_path / "plain"))
    fsport.refuse_device("/dev/null")


@pytest.mark.parametrize(
    ("path", "blocked"),
    [
        ("/dev/stdout", True),
        ("/dev/fd/2", True),
        ("/proc/self/fd/0", True),
        ("/proc/thread-self/fd/2", True),
        ("/proc/123/task/45/fd/1", True),
        ("/proc/self/fd/3", False),
        ("/proc/self/fd/01", False),
        ("/dev/null", False),
        ("x/proc/self/fd/0", False),
    ],
)
def test_is_blocked_device(path: str, blocked: bool) -> None:
    assert fsport.is_blocked_device(path) is blocked


def test_check_file_kind_says_what_the_path_is(tmp_path: Path) -> None:
    directory = str(tmp_path)
    assert refusal(fsport.check_file_kind, directory, code="is_directory", path=directory) == (
        f"{directory} is a directory, not a file. List it with glob (path={directory!r}) or "
        "bash `ls`."
    )
    os.mkfifo(tmp_path / "p")
    fifo = str(tmp_path / "p")
    assert refusal(fsport.check_file_kind, fifo, code="not_regular_file", path=fifo) == (
        f"{fifo} is not a regular file (named pipe (FIFO)); reading it could block or never "
        "end. Read a regular file instead."
    )
    assert refusal(fsport.check_file_kind, "/dev/zero", code="not_regular_file").startswith(
        "/dev/zero is not a regular file (character device);"
    )
    assert stat.S_ISCHR(fsport.check_file_kind("/dev/null").st_mode)
    (tmp_path / "f").write_text("abc")
    assert fsport.check_file_kind(str(tmp_path / "f")).st_size == 3
    with pytest.raises(FileNotFoundError):
        fsport.check_file_kind(str(tmp_path / "missing"))


def test_check_file_kind_when_the_path_cannot_be_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f").write_text("x")
    name = str(tmp_path / "f" / "below")  # a file is no directory
    assert refusal(fsport.check_file_kind, name, code="io_error", path=name) == (
        f"Cannot access {name}: Not a directory."
    )
    assert refusal(fsport.check_file_kind, "a\0b", code="io_error") == (
        "Cannot access a\0b: invalid name."
    )

    def refuse(path: str) -> Any:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(fsport.os, "stat", refuse)
    with pytest.raises(ToolError) as caught:
        fsport.check_file_kind(name)
    assert caught.value.code == "permission_denied" and caught.value.details == {"path": name}
    assert (
        caught.value.message == f"Permission denied: cannot access {name}. Check its permissions."
    )


def test_atomic_replace_writes_whole_files_with_the_mode_asked_for(tmp_path: Path) -> None:
    target = str(tmp_path / "f")
    data = b"x" * (fsport.WRITE_CHUNK * 2 + 3)
    fsport.atomic_replace(target, data, 0o640)
    assert Path(target).read_bytes() == data
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    before = os.umask(0o027)
    try:
        fsport.atomic_replace(target, b"", None)
    finally:
        os.umask(before)
    assert Path(target).read_bytes() == b""
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # 0o666 under umask 027
    os.unlink(target)
    before = os.umask(0o022)
    try:
        fsport.atomic_replace(target, b"x", None)
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert os.listdir(tmp_path) == ["f"]


def test_a_cancelled_atomic_replace_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ToolError) as caught:
        fsport.atomic_replace(str(target), b"new" * fsport.WRITE_CHUNK, None, cancel)
    assert caught.value.code == "aborted"
    assert caught.value.message == f"The write of {target} was cancelled; the file was not changed."
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]


def test_temp_names_carry_the_writer_and_a_shortened_name(tmp_path: Path) -> None:
    pid, start = fsport._own_token()
    assert pid == os.getpid() and start > 0
    made = fsport.temp_path(str(tmp_path / ("n" * 50)))
    name = os.path.basename(made)
    found = fsport.TEMP_NAME.match(name)
    assert found and (int(found["pid"]), int(found["start"])) == (pid, start)
    assert os.path.dirname(made) == str(tmp_path)
    assert name.startswith(f".{'n' * 40}.agenttools-{pid}-{start}-") and len(name) == 41 + len(
        f".agenttools-{pid}-{start}-"
    ) + 8 + len(".tmp")
    assert fsport.temp_path(str(tmp_path / "a")) != fsport.temp_path(str(tmp_path / "a"))


def test_own_token_without_a_start_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fsport, "_start_ticks", lambda pid: None)
    assert fsport._own_token() == (os.getpid(), 0)


def test_start_ticks_of_live_and_missing_processes() -> None:
    mine = fsport._start_ticks(os.getpid())
    assert isinstance(mine, int) and mine > 0
    first = fsport._start_ticks(1)
    assert first is not None and first <= mine
    assert fsport._start_ticks(2**22 + 1) is None
    ticks = os.sysconf("SC_CLK_TCK")
    started = psutil.boot_time() + mine / ticks
    assert abs(started - psutil.Process().create_time()) < 1


def test_sweep_removes_only_the_temp_files_of_dead_writers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # entries in name order, this process's own first: a sweep that stopped at it would leave
    # the dead writers' files behind
    scandir = os.scandir
    monkeypatch.setattr(
        fsport.os, "scandir", lambda path: sorted(scandir(path), key=lambda e: e.name)
    )
    pid, start = fsport._own_token()
    dead = subprocess.Popen(["true"])
    dead.wait()
    names = {
        "mine": f".a.agenttools-{pid}-{start}-0001.tmp",
        "dead": f".b.agenttools-{dead.pid}-1-0002.tmp",
        "reused": f".c.agenttools-{pid}-{start + 1}-0003.tmp",
        "alive": f".d.agenttools-1-{fsport._start_ticks(1)}-0004.tmp",
        "other": ".e.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_text("x")
    directory = f".f.agenttools-{dead.pid}-1-0005.tmp"  # a directory by that name is no file
    (tmp_path / directory).mkdir()
    link = f".g.agenttools-{dead.pid}-1-0006.tmp"  # nor is a link by that name
    (tmp_path / link).symlink_to(tmp_path / names["other"])
    assert fsport.sweep_stale_temps(str(tmp_path)) == 2
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {names["mine"], names["alive"], names["other"], directory, link}
    assert fsport.sweep_stale_temps(str(tmp_path), own=True) == 1
    assert names["mine"] not in {p.name for p in tmp_path.iterdir()}
    assert fsport.sweep_stale_temps(str(tmp_path / "missing")) == 0
