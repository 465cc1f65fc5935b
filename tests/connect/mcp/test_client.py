"""The MCP client adapter: mapping, translation, result conversion, failures, and a real server.

The translation and conversion tests need nothing. The adapter tests start a tiny MCP server
written with the SDK (``tests/servers/mcp_echo_server.py``) and need the ``mcp`` package; the last
test runs the suite against @modelcontextprotocol/server-filesystem from the npm registry with
``peers/mcp-filesystem``. Both skip when what they need is missing, unless
AGENTTOOLS_REQUIRE_MCP=1 (set in CI) makes the absence a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools.cli.runner import VERDICT_ONLY
from pytest_agenttools.connect.base import AdapterError, ProtocolError, TransportLimit
from pytest_agenttools.connect.mcp.client import (
    MAX_WORKSPACE_SERVERS,
    McpAdapter,
    TranslationConflict,
    convert_result,
    load_mapping,
    marked_processes,
    parse_mapping,
    parse_target,
    temp_root,
    unencodable,
)
from pytest_agenttools.connect.mcp.results import finish, first_changed_line, prepare
from pytest_agenttools.connect.mcp.transforms import Context, Spread, parse_transform
from pytest_agenttools.harness.assertions import (
    bash_obs,
    edit_obs,
    expect_in_order,
    glob_obs,
    grep_obs,
    read_obs,
    write_obs,
)
from pytest_agenttools.harness.contract import ContractViolation, ToolCall, ToolResult
from pytest_agenttools.harness.observations import parse_observation
from tests.support import REPO, SERVERS, WAIT_S, strict_report

pytest_plugins = ["pytester"]

ECHO = SERVERS / "mcp_echo_server.py"
EXAMPLE = REPO / "peers" / "mcp-filesystem"
REQUIRED = os.environ.get("AGENTTOOLS_REQUIRE_MCP") == "1"

ECHO_MAPPING: dict[str, Any] = {
    "manifest": {"features": ["edit.multi"], "limits": {"read.max_lines": 7}},
    "tools": {
        "read": {
            "tool": "show",
            "paths": ["path"],
            "arguments": {"limit": "head"},
            "drop": ["pages"],
        },
        "edit": {
            "tool": "show",
            "paths": ["file_path"],
            "arguments": {
                "file_path": "path",
                "old_string": "edits[0].oldText",
                "new_string": "edits[0].newText",
            },
            "items": {"edits": {"old_string": "oldText", "new_string": "newText"}},
            "fixed": {"dryRun": False},
            "drop": ["replace_all"],
        },
        "write": {"tool": "media"},
        "grep": {"tool": "fail", "arguments": {"pattern": "message"}},
        "bash": {
            "tool": "slow",
            "arguments": {"command": "seconds"},
            "fixed": {"directory": "{cwd}"},
        },
        "glob": {"tool": "die"},
    },
}


def need_sdk() -> None:
    if importlib.util.find_spec("mcp") is None:
        if REQUIRED:
            pytest.fail("the mcp SDK is not installed: pip install 'pytest-agenttools[mcp]'")
        pytest.skip("the mcp SDK is not installed (pip install 'pytest-agenttools[mcp]')")


def echo_command(*extra: str) -> str:
    return " ".join([sys.executable, str(ECHO), *extra])


def call(tool: str, cwd: str = "/work/ws", **arguments: Any) -> ToolCall:
    return ToolCall(tool=tool, arguments=arguments, cwd=cwd)


# ---- the mapping and the translation (no SDK needed)


def translate(tool: str, **arguments: Any) -> dict[str, Any]:
    mapping = parse_mapping(ECHO_MAPPING).tools[tool]
    return mapping.translate(arguments, "/work/ws")


def test_parse_target() -> None:
    assert parse_target("path") == ("path",)
    assert parse_target("edits[0].oldText") == ("edits", 0, "oldText")
    assert parse_target("a.b[2][1].c") == ("a", "b", 2, 1, "c")
    for bad in ("", "a..b", "a[x]", "[0]", "a.[0]"):
        with pytest.raises(ValueError, match="bad target"):
            parse_target(bad)


def test_renames_paths_drop_and_fixed() -> None:
    assert translate("read", path="a.txt", limit=3, offset=2, pages="1") == {
        "path": "/work/ws/a.txt",
        "head": 3,
        "offset": 2,  # unmapped: passed under its canonical name
    }
    # absolute, empty and non-string paths are sent as they are
    assert translate("read", path="/etc/hosts")["path"] == "/etc/hosts"
    assert translate("read", path="")["path"] == ""
    assert translate("read", path=42)["path"] == 42
    assert translate("read", path=None)["path"] is None
    # the call's order is kept; fixed values are added
    assert list(translate("edit", new_string="b", file_path="f", old_string="a")) == [
        "edits",
        "path",
        "dryRun",
    ]


def test_single_edit_becomes_a_list_item_and_items_are_renamed() -> None:
    assert translate("edit", file_path="f.txt", old_string="a", new_string="b") == {
        "path": "/work/ws/f.txt",
        "edits": [{"oldText": "a", "newText": "b"}],
        "dryRun": False,
    }
    # a missing half leaves the other key out (the server's validation names it)
    assert translate("edit", file_path="f.txt", old_string="a")["edits"] == [{"oldText": "a"}]
    multi = translate(
        "edit",
        file_path="f.txt",
        edits=[{"old_string": "a", "new_string": "b", "replace_all": True}, "junk"],
    )
    assert multi["edits"] == [{"oldText": "a", "newText": "b", "replace_all": True}, "junk"]
    assert translate("edit", file_path="f.txt", edits="nope")["edits"] == "nope"


def test_two_arguments_on_one_value_conflict() -> None:
    with pytest.raises(TranslationConflict, match="old_string and edits"):
        translate("edit", file_path="f", old_string="a", new_string="b", edits=[])
    mapping = parse_mapping(
        {"tools": {"read": {"tool": "t", "arguments": {"path": "x[1]", "limit": "x[1]"}}}}
    )
    with pytest.raises(TranslationConflict):
        mapping.tools["read"].translate({"path": "p", "limit": 1}, "/")
    sparse = parse_mapping({"tools": {"read": {"tool": "t", "arguments": {"path": "x[2].p"}}}})
    assert sparse.tools["read"].translate({"path": "/a"}, "/") == {"x": [None, None, {"p": "/a"}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tools": {}}, "maps no tool"),
        ({"tool": {}}, r"top level: unknown key 'tool' \(did you mean 'tools'\?\)"),
        ({"tools": {"frobnicate": {"tool": "x"}}}, "not a canonical tool"),
        ({"tools": {"read": {}}}, "'tool'"),
        ({"tools": {"read": {"tool": "x", "argument": {}}}}, "unknown key 'argument'"),
        ({"tools": {"read": {"tool": "x", "default": {}}}}, "did you mean 'defaults'"),
        ({"tools": {"read": {"tool": "x", "result": {"observe": "x"}}}}, "unknown key 'observe'"),
        (
            {"tools": {"read": {"tool": "x", "result": {"observation": "text_line"}}}},
            "did you mean 'text_lines'",
        ),
        (
            {"tools": {"write": {"tool": "x", "result": {"observation": "text_lines"}}}},
            "makes read observations, not write",
        ),
        (
            {
                "tools": {
                    "bash": {
                        "tool": "x",
                        "result": {"observation": "json_fields", "fields": {"exit": "code"}},
                    }
                }
            },
            r"'exit' is not a bash observation key \(did you mean 'exit_code'\?\)",
        ),
        (
            {"tools": {"read": {"tool": "x", "transforms": {"limit": "secs_to_ms"}}}},
            "unknown transform 'secs_to_ms'",
        ),
        (
            {
                "tools": {
                    "read": {
                        "tool": "x",
                        "transforms": {"pages": {"name": "pages_to_range", "start": "a"}},
                    }
                }
            },
            r"needs \['count'\]",
        ),
        (
            {
                "tools": {
                    "read": {"tool": "x", "transforms": {"limit": {"name": "negate", "by": 1}}}
                }
            },
            r"unknown parameters \['by'\]",
        ),
        ({"tools": {"read": {"tool": "x", "result": {"strip": "("}}}}, "bad regular expression"),
        (
            {"tools": {"read": {"tool": "x", "result": {"continuation": "more"}}}},
            "needs a group",
        ),
        (
            {"tools": {"read": {"tool": "x", "result": {"is_error": {"field": "s"}}}}},
            "exactly one of 'in' and 'not_in'",
        ),
        ({"server": {"home": "mine"}, "tools": {"read": {"tool": "x"}}}, "home must be"),
        ({"server": {"dir": "x"}, "tools": {"read": {"tool": "x"}}}, "unknown key 'dir'"),
        ({"configure": {"arguments": {}}, "tools": {"read": {"tool": "x"}}}, "'tool'"),
        ({"tools": {"read": {"tool": "x", "arguments": {"path": "a..b"}}}}, "arguments.path"),
        ({"tools": {"read": {"tool": "x", "paths": "path"}}}, "paths must be a list"),
        ({"tools": {"read": {"tool": "x", "items": {"e": {"a": 1}}}}}, "items.e"),
        (
            {"manifest": {"settings": ["read.max_lines"]}, "tools": {"read": {"tool": "x"}}},
            r"settings \['read.max_lines'\] that no \[configure\] argument routes",
        ),
    ],
)
def test_bad_mappings_are_named(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_mapping(data)


def test_mapping_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match="no mapping file"):
        load_mapping(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[tools\n")
    with pytest.raises(AdapterError, match="not valid TOML"):
        load_mapping(bad)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('[tools.read]\ntool = "x"\npaths = "path"\n')
    with pytest.raises(AdapterError, match=r"wrong\.toml.*paths must be a list"):
        load_mapping(wrong)


def test_the_example_mapping_parses() -> None:
    mapping = load_mapping(EXAMPLE / "mapping.toml")
    assert {m.tool for m in mapping.tools.values()} == {
        "read_text_file",
        "write_file",
        "edit_file",
    }
    edit = mapping.tools["edit"].translate(
        {"file_path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": True}, "/w"
    )
    assert edit == {
        "path": "/w/f.txt",
        "edits": [{"oldText": "a", "newText": "b"}],
        "dryRun": False,
    }


def test_unencodable_strings_are_found() -> None:
    assert unencodable({"path": "a", "content": "ok é"}) is None
    assert unencodable({"content": "bad \ud800"}) == "arguments.content"
    assert unencodable({"edits": [{"old_string": "\udfff"}]}) == "arguments.edits[0].old_string"
    # keys are JSON strings too (found by test_adapter_equivalence's property)
    assert unencodable({"pattern": [{"\ud800": None}]}) == "arguments.pattern[0] (a key)"


def test_result_conversion() -> None:
    result = convert_result(
        {
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "inner"}},
                {
                    "type": "resource",
                    "resource": {"uri": "file:///b", "mimeType": "x/y", "blob": "AAAA"},
                },
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
            ],
            "isError": True,
            "structuredContent": {"content": "hello"},
        }
    )
    assert result.is_error
    assert result.images == [("image/png", b"hi")]
    assert result.text.splitlines() == [
        "hello",
        "[audio audio/wav, 4 base64 chars]",
        "inner",
        "[resource file:///b (x/y), 4 base64 chars]",
        "[resource link file:///c]",
    ]
    assert result.details == {"content": "hello"}
    plain = convert_result({"content": [{"type": "text", "text": "x"}]})
    assert not plain.is_error and plain.details == {}
    assert convert_result({"content": [], "structuredContent": [1, 2]}).details == {}
    with pytest.raises(ContractViolation):
        convert_result({"content": ["text"]})
    with pytest.raises(ContractViolation):
        convert_result({"content": [{"type": "text", "text": None}]})


def test_placeholder_is_the_real_workspace_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTTOOLS_TMPDIR", "/tmp/../tmp")
    assert temp_root() == os.path.realpath("/tmp")


# ---- the adapter against a real MCP server written with the SDK


@pytest.fixture(scope="module")
def echo() -> Iterator[McpAdapter]:
    need_sdk()
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, {"version": "9.9"}, call_timeout=20)
    adapter.start()
    yield adapter
    adapter.close()


def test_start_builds_the_manifest(echo: McpAdapter) -> None:
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, {"version": "9.9", "limits": {"x-own": 1}})
    try:
        manifest = adapter.start()
    finally:
        adapter.close()
    assert manifest.name == "echo-server"  # the server's own name: the mapping gives none
    assert manifest.version == "9.9"  # the --agenttools-manifest file wins
    assert manifest.tools == frozenset(ECHO_MAPPING["tools"])
    assert manifest.features == frozenset({"edit.multi"})
    assert {n: lim.value for n, lim in manifest.limits.items()} == {"read.max_lines": 7, "x-own": 1}
    assert manifest.line_numbers == "none"
    assert "show" in adapter.server_tools and "die" in adapter.server_tools
    assert echo.configure({"read.max_lines": 3}) == {}
    assert echo.describe() == f"MCP adapter `{echo_command()}`"


def test_the_server_receives_the_translation(echo: McpAdapter) -> None:
    result = echo.call(call("read", path="a.txt", limit=3, pages="1-2"))
    assert not result.is_error
    assert result.details == {"received": {"path": "/work/ws/a.txt", "head": 3}}
    assert json.loads(result.text) == result.details
    edit = echo.call(call("edit", file_path="sub/f.txt", old_string="x", new_string="y"))
    assert edit.details["received"] == {
        "path": "/work/ws/sub/f.txt",
        "edits": [{"oldText": "x", "newText": "y"}],
        "dryRun": False,
    }


def test_content_blocks_are_converted(echo: McpAdapter) -> None:
    result = echo.call(call("write", path="x", content="y"))
    assert result.text.startswith("caption")
    assert [mime for mime, _ in result.images] == ["image/png"]
    assert result.images[0][1].startswith(b"\x89PNG")


def test_a_tool_failure_is_an_error_result(echo: McpAdapter) -> None:
    result = echo.call(call("grep", pattern="disk on fire"))
    assert result.is_error and "disk on fire" in result.text


def test_faults_before_the_server(echo: McpAdapter) -> None:
    with pytest.raises(
        ProtocolError, match="maps no MCP tool for the canonical tool 'task_output'"
    ) as info:
        echo.call(call("task_output", task_id="1"))
    assert info.value.code == -32602
    with pytest.raises(ProtocolError, match="old_string and edits") as info:
        echo.call(call("edit", file_path="f", old_string="a", new_string="b", edits=[]))
    assert info.value.code == -32602
    with pytest.raises(ProtocolError, match=r"arguments\.content holds a lone surrogate"):
        echo.call(call("edit", file_path="f", content="\ud800"))
    raw = ToolCall(tool="read", arguments=["not", "an", "object"], cwd="/")
    with pytest.raises(TransportLimit, match="carries arguments as an object only"):
        echo.call(raw)
    with pytest.raises(TransportLimit, match="nest 251 levels deep") as limit:
        echo.call(call("read", path=nested(250)))
    assert limit.value.code == -32602
    # a translation that nests deeper than the canonical arguments is measured as sent
    with pytest.raises(TransportLimit, match="nest 199 levels deep"):
        echo.call(call("edit", file_path="f", old_string=nested(196), new_string="b"))
    # none of that touched the server
    assert not echo.call(call("read", path="still-alive")).is_error
    assert echo.call(call("read", path=nested(190))).details["received"]["path"] == nested(190)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_calls_are_normalised_as_on_the_wire(echo: McpAdapter) -> None:
    """As in every adapter, a call goes through JSON before anything else: a tuple is a list
    (so ``items`` renames reach its items), and NaN or an infinity is refused by the kit before
    anything is sent, with the AdapterError every adapter raises (the SDK would send null)."""
    edits = ({"old_string": "x", "new_string": "y"},)
    result = echo.call(call("edit", file_path="f.txt", edits=edits))
    assert result.details["received"]["edits"] == [{"oldText": "x", "newText": "y"}]
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(AdapterError, match=r"cannot send .* is not valid JSON") as info:
            echo.call(call("read", path="a.txt", limit=[1, bad]))
        assert not isinstance(info.value, ProtocolError), "the kit refuses, not the server"


def test_cancel_ends_the_call_with_an_aborted_result(echo: McpAdapter) -> None:
    pending = echo.submit(call("bash", command=30))
    time.sleep(0.5)
    started = time.monotonic()
    pending.cancel()
    result = pending.result(5)
    assert time.monotonic() - started < 5
    assert pending.done()
    assert result.is_error and "cancelled" in result.text and result.details["cancelled"] is True
    # bash results always carry an observation: this one says the call was aborted
    observation = bash_obs(result)
    assert observation.aborted and not observation.running and observation.exit_code is None
    assert not echo.call(call("read", path="after-cancel")).is_error


def test_many_calls_in_flight(echo: McpAdapter) -> None:
    pending = [echo.submit(call("read", path=f"f{i}.txt")) for i in range(20)]
    paths = [p.result(20).details["received"]["path"] for p in pending]
    assert paths == [f"/work/ws/f{i}.txt" for i in range(20)]


def test_a_silent_call_times_out_and_the_server_is_restarted() -> None:
    need_sdk()
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, call_timeout=1)
    adapter.start()
    try:
        started = time.monotonic()
        with pytest.raises(
            AdapterError,
            match=r"no answer to bash\(command=30\) \(MCP tool 'slow'\) within [0-9.]+ s",
        ):
            adapter.call(call("bash", command=30))
        assert time.monotonic() - started < 10
        assert adapter.restarts == 1
        assert not adapter.call(call("read", path="next")).is_error
    finally:
        adapter.close()


def test_the_deadline_is_armed_at_submit() -> None:
    """As in the other adapters: a result() asked for late waits only what is left of the
    call's deadline, not a whole new one."""
    need_sdk()
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, call_timeout=3)
    adapter.start()
    try:
        pending = adapter.submit(call("bash", command=30))
        time.sleep(2)
        started = time.monotonic()
        with pytest.raises(AdapterError, match="within 3 s"):
            pending.result()
        assert time.monotonic() - started < 2.5, "it waited a whole deadline again"
    finally:
        adapter.close()


def test_a_dead_server_fails_its_call_and_the_next_call_restarts_it() -> None:
    need_sdk()
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, call_timeout=20)
    adapter.start()
    try:
        with pytest.raises(AdapterError) as info:
            adapter.call(call("glob", pattern="*"))
        message = str(info.value)
        assert message.startswith(f"MCP adapter `{echo_command()}`: glob(pattern='*')")
        assert "connection to the server broke" in message
        assert "echo-server: dying on request" in message  # its stderr is shown
        result = adapter.call(call("read", path="again"))
        assert result.details["received"]["path"] == "/work/ws/again"
        assert adapter.restarts == 1
    finally:
        adapter.close()


def test_a_server_that_died_between_calls_is_replaced_before_the_next_call() -> None:
    """A death after an answer (a crash the last call set off, a kill from outside) is no doing
    of the next call, which is another test's: that call goes to a new server, not into the
    dead one's closed pipe. The SDK learns of the death from the pipe, later; the adapter looks
    at the process."""
    need_sdk()
    mapping = {**ECHO_MAPPING, "tools": {**ECHO_MAPPING["tools"], "grep": {"tool": "die_soon"}}}
    adapter = McpAdapter(echo_command(), mapping, call_timeout=20)
    adapter.start()
    try:
        pid = adapter.server_pid(call("read", path="x"))
        assert pid is not None
        assert "exiting" in adapter.call(call("grep", pattern="x")).text
        deadline = time.monotonic() + WAIT_S
        while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the server did not exit"
            time.sleep(0.02)
        result = adapter.call(call("read", path="again"))
        assert result.details["received"]["path"] == "/work/ws/again"
        assert adapter.restarts == 1
    finally:
        adapter.close()


def test_start_failures_name_the_adapter(tmp_path: Path) -> None:
    need_sdk()
    crashing = McpAdapter(echo_command("--crash"), ECHO_MAPPING, call_timeout=20)
    with pytest.raises(AdapterError) as info:
        crashing.start()
    crashing.close()
    assert "MCP adapter" in str(info.value) and "refusing to start" in str(info.value)

    missing = McpAdapter(str(tmp_path / "no-such-server"), ECHO_MAPPING, call_timeout=20)
    with pytest.raises(AdapterError, match="could not start the server"):
        missing.start()
    missing.close()

    mapping = {"tools": {"read": {"tool": "read_text_file"}, "write": {"tool": "show"}}}
    wrong = McpAdapter(echo_command(), mapping, call_timeout=20)
    with pytest.raises(AdapterError, match=r"does not list \(read -> 'read_text_file'\)"):
        wrong.start()

    undeclared = {"manifest": {"tools": ["read", "bash"]}, "tools": {"read": {"tool": "show"}}}
    adapter = McpAdapter(echo_command(), undeclared, call_timeout=20)
    with pytest.raises(AdapterError, match=r"declares tools \['bash'\]"):
        adapter.start()

    weird = {"manifest": {"output": {"line_numbers": "roman"}}, "tools": {"read": {"tool": "show"}}}
    adapter = McpAdapter(echo_command(), weird, call_timeout=20)
    with pytest.raises(ContractViolation, match=r"mapping file .*line_numbers"):
        adapter.start()
    assert adapter._servers == {}  # the server was stopped
    assert all(server.reaped for server in adapter._started)

    with pytest.raises(AdapterError, match="--agenttools-mcp is empty"):
        McpAdapter("  ", ECHO_MAPPING)


def test_the_placeholder_is_replaced_in_the_command() -> None:
    need_sdk()
    adapter = McpAdapter(f"{sys.executable} {ECHO} --root={{tmp}}", ECHO_MAPPING)
    assert adapter.argv[-1] == f"--root={temp_root()}"
    assert adapter.argv[0] == sys.executable


# ---- wiring: options, the plugin, the CLI


MAPPING_TOML = """
[manifest]
name = "echo"
[tools.read]
tool = "show"
paths = ["path"]
arguments = { limit = "head" }
"""


def test_plugin_runs_through_the_mcp_adapter(pytester: pytest.Pytester) -> None:
    need_sdk()
    mapping = pytester.makefile(".toml", mapping=MAPPING_TOML)
    pytester.makepyfile(
        """
        def test_read(agenttools_client, agenttools_workspace, agenttools_manifest):
            assert agenttools_manifest.name == "echo"
            result = agenttools_client.read(path="a.txt", limit=2)
            expected = {"path": str(agenttools_workspace.root / "a.txt"), "head": 2}
            assert result.details == {"received": expected}
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--agenttools-mcp={echo_command()}",
        f"--agenttools-mcp-mapping={mapping}",
    )  # fmt: skip
    result.assert_outcomes(passed=1)


def test_ini_twins(pytester: pytest.Pytester) -> None:
    need_sdk()
    mapping = pytester.makefile(".toml", mapping=MAPPING_TOML)
    pytester.makeini(
        f"[pytest]\nagenttools_mcp = {echo_command()}\nagenttools_mcp_mapping = {mapping}\n"
    )
    pytester.makepyfile(
        """
        def test_name(agenttools_manifest):
            assert agenttools_manifest.name == "echo"
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agenttools-mcp=server"], "*--agenttools-mcp needs --agenttools-mcp-mapping*"),
        (["--agenttools-mcp-mapping=m.toml"], "*only used with --agenttools-mcp*"),
        (
            ["--agenttools-mcp=server", "--agenttools-mcp-mapping=m.toml", "--agenttools-cmd=x"],
            "*--agenttools-cmd and --agenttools-mcp given; choose one*",
        ),
    ],
)
def test_option_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile("def test_x(agenttools_manifest): pass")
    result = pytester.runpytest(*args)
    result.stderr.fnmatch_lines([message])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_help_lists_the_mcp_options(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--agenttools-mcp=*", "*--agenttools-mcp-mapping=*"])
    result.stdout.fnmatch_lines(["*agenttools_mcp_mapping*"])


def test_cli_flags(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_agenttools.cli.commands import build_parser, main

    ns = build_parser().parse_args(["run", "--mcp", "node s.js {tmp}", "--mcp-mapping", "m.toml"])
    assert (ns.mcp, ns.mcp_mapping) == ("node s.js {tmp}", "m.toml")
    for argv in (["run", "--mcp", "x"], ["run", "--mcp-mapping", "m.toml"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        assert "--mcp and --mcp-mapping go together" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--mcp", "x", "--mcp-mapping", "m", "--cmd", "y"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_plugin_import_does_not_load_the_sdk() -> None:
    code = (
        "import sys, pytest_agenttools.plugin, pytest_agenttools.run.session, "
        "pytest_agenttools.run.options, pytest_agenttools.cli; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# ---- real servers from the npm registry, with their expectations (run in CI)

FS_ENTRY = (
    EXAMPLE / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
)
SHELL = REPO / "peers" / "mcp-shell"
SHELL_ENTRY = SHELL / "node_modules" / "@mako10k" / "mcp-shell-server" / "dist" / "index.js"
SHELL_PTY = SHELL / "node_modules" / "node-pty" / "build" / "Release" / "pty.node"
SHELL_ENV = "env MCP_SHELL_ENHANCED_MODE=false MCP_SHELL_LLM_EVALUATION=false"


def shell_command() -> str:
    return f"{SHELL_ENV} MCP_SHELL_ALLOWED_WORKDIRS={{tmp}} node {SHELL_ENTRY}"


def need_example(entry: Path, *built: Path, install: str) -> None:
    if (
        not entry.is_file()
        or not all(p.is_file() for p in built)
        or not shutil.which("node")
        or importlib.util.find_spec("mcp") is None
    ):
        if REQUIRED:
            pytest.fail(f"{entry.name} or the mcp SDK is missing: {install}")
        pytest.skip(f"the example server is not installed ({install})")


def run_strict(tmp_path: Path, command: str, example: Path) -> dict[str, Any]:
    """The suite against an example server with its expectations, in strict mode."""
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    proc = subprocess.run(
        [
            exe, "run", "--mcp", command,
            "--mcp-mapping", str(example / "mapping.toml"),
            "--expectations", str(example / "expectations.toml"),
            "--strict", "--report-json", "report.json", "--", "-n", "2",
            *VERDICT_ONLY,  # the outcomes are the check
        ],
        cwd=tmp_path, capture_output=True, text=True, timeout=1500,
    )  # fmt: skip
    report = strict_report(proc, tmp_path / "report.json")
    assert report["implementation"]["adapter"].startswith("MCP adapter `")
    entries = tomllib.loads((example / "expectations.toml").read_text())
    for found in entries.get("xfail", []) + entries.get("skip", []):
        assert len(found["reason"]) > 20, f"{found['id']}: say which server behaviour breaks it"
    return report


@pytest.mark.kit_long(40)
def test_server_filesystem_deviations_are_exactly_the_expected_ones(tmp_path: Path) -> None:
    need_example(FS_ENTRY, install="npm ci --ignore-scripts in peers/mcp-filesystem")
    report = run_strict(tmp_path, f"node {FS_ENTRY} {{tmp}}", EXAMPLE)
    assert report["implementation"]["name"] == "server-filesystem"
    assert report["summary"]["passed"] >= 30, "read, write and edit must really run"
    assert report["summary"]["xfailed"] >= 20, "the server's real deviations show as expected"


@pytest.mark.kit_long(62)
def test_mcp_shell_deviations_are_exactly_the_expected_ones(tmp_path: Path) -> None:
    need_example(SHELL_ENTRY, SHELL_PTY, install=SHELL_INSTALL)
    report = run_strict(tmp_path, shell_command(), SHELL)
    assert report["implementation"]["name"] == "mcp-shell-server"
    assert report["summary"]["passed"] >= 20, "bash and task_output must really run"
    assert report["summary"]["xfailed"] >= 10, "the server's real deviations show as expected"


SHELL_INSTALL = (
    "cd peers/mcp-shell && npm ci --ignore-scripts && npm rebuild node-pty --nodedir=/usr"
)


def test_the_shell_mapping_parses_and_runs_in_the_workspace() -> None:
    mapping = load_mapping(SHELL / "mapping.toml")
    assert mapping.scripted == {"bash", "task_output"}
    assert mapping.server.home == "private" and mapping.server.directory == "private"


def test_the_shell_mapping_waits_for_an_ended_tasks_stored_output() -> None:
    """The server sets ``completed`` before its output is stored; the output is not lost."""
    from pytest_agenttools.connect.mcp.script import McpSession, script_function

    polls: list[dict[str, Any]] = [
        {"status": "running"},
        {"status": "completed", "exit_code": 4},  # the store is still being awaited
        {"status": "completed", "exit_code": 4},
        {"status": "completed", "exit_code": 4, "output_id": "o1"},
    ]
    asked: list[str] = []

    async def call_tool(tool: str, arguments: Any) -> dict[str, Any]:
        asked.append(tool)
        if tool == "process_get_execution":
            data = polls.pop(0) if len(polls) > 1 else polls[0]
        else:
            data = {"content": "x\n", "total_size": 2}
        return {"content": [{"type": "text", "text": json.dumps(data)}]}

    async def unused(*_: Any) -> Any:
        raise AssertionError("the shell mapping makes its own calls")

    session = McpSession(call_tool, unused, unused, {}, "/tmp")  # type: ignore[arg-type]
    task_output = script_function(str(SHELL / "shell_mapping.py"), "task_output")
    poll = call("task_output", task_id="e1", block=True, timeout=5)

    async def poll_twice() -> tuple[ToolResult, ToolResult]:
        return await task_output(poll, session), await task_output(poll, session)

    first, again = asyncio.run(poll_twice())
    shown = first.details["observation"]
    assert shown["output"] == "x\n" and shown["exit_code"] == 4 and not shown["running"]
    get, read = "process_get_execution", "read_execution_output"
    assert asked == [get, get, get, get, read, get, read], "polled until the output was stored"
    shown = again.details["observation"]
    assert shown["output"] == "" and shown["exit_code"] == 4, "the output is shown once"


@pytest.mark.kit_long(18)
def test_mcp_shell_deviations(tmp_path: Path) -> None:
    """Every entry of peers/mcp-shell/expectations.toml, shown by calling the server."""
    need_example(SHELL_ENTRY, SHELL_PTY, install=SHELL_INSTALL)
    ws = Path(tempfile.mkdtemp(dir=temp_root())).resolve()
    adapter = McpAdapter(shell_command(), SHELL / "mapping.toml", call_timeout=60)
    adapter.start()
    started: list[int] = []

    def bash(command: str, **arguments: Any) -> tuple[ToolResult, Any]:
        result = adapter.call(call("bash", cwd=str(ws), command=command, **arguments))
        return result, bash_obs(result)

    def pids(name: str) -> list[int]:
        found = [int(x) for x in (ws / name).read_text().split()]
        started.extend(found)
        return found

    try:
        # arguments: a blank command runs; a missing directory is not named
        result, obs = bash("   ")
        assert not result.is_error and obs.exit_code == 0
        gone = adapter.call(call("bash", cwd=str(ws / "gone"), command="true"))
        assert gone.is_error and "spawn /bin/bash ENOENT" in gone.text
        assert str(ws / "gone") not in gone.text
        # a signal death is a success with exit code 0
        result, obs = bash("echo before; kill -TERM $$")
        assert not result.is_error and obs.exit_code == 0 and obs.signal is None
        assert '"status": "completed"' in result.text
        # a timeout is reported as completed with exit code 0
        result, obs = bash("echo before; sleep 30", timeout=1)
        assert not result.is_error and not obs.timed_out and obs.exit_code == 0
        # the server's process group; separate streams
        result, obs = bash("ps -o pgid= -p $$; ps -o pgid= -p $PPID")
        shell_group, server_group = obs.output.split()
        assert shell_group == server_group
        result, obs = bash("echo o1; echo e1 >&2; echo o2")
        assert obs.output == "o1\no2\ne1\n"
        # on timeout only bash is signalled: its child and a TERM-ignoring shell survive
        bash("sleep 60 & echo $! > child; wait", timeout=1)
        assert all(psutil_alive(pid) for pid in pids("child"))
        bash("setsid sleep 60 & echo $! > escapee; sleep 30", timeout=1)
        assert all(psutil_alive(pid) for pid in pids("escapee"))
        bash("trap '' TERM; echo $$ > stubborn; while :; do sleep 0.1; done", timeout=1)
        time.sleep(6)  # the server's SIGKILL follow-up would have come after 5 s
        assert all(psutil_alive(pid) for pid in pids("stubborn"))
        # a leftover holding stdout keeps the call waiting until its timeout
        begun = time.monotonic()
        result, obs = bash("sleep 60 & echo $! > holder; echo done", timeout=2)
        assert time.monotonic() - begun >= 2 and '"status": "timeout"' in result.text
        pids("holder")
        # cancel is ignored: the command runs on
        pending = adapter.submit(call("bash", cwd=str(ws), command="echo $$ > cancelled; sleep 30"))
        time.sleep(1)
        pending.cancel()
        assert bash_obs(pending.result(10)).aborted
        time.sleep(1)
        assert all(psutil_alive(pid) for pid in pids("cancelled"))
        # a UTF-8 character split across two writes is garbled
        result, obs = bash("printf '\\xe4\\xb8'; sleep 0.3; printf '\\xad\\n'")
        assert "\ufffd" in obs.output and "\u4e2d" not in obs.output
        # stdout is cut to 1,000 characters, silently, and the end is never shown
        result, obs = bash("seq 1 3000")
        answer = json.loads(result.text)
        assert len(answer["stdout"]) == 1000 and answer["output_truncated"] is False
        assert "3000" not in answer["stdout"] and obs.full_output_path is None
        # the output is shown JSON-escaped inside the answer (layout: the text checks accept it)
        result, obs = bash("printf 'alpha 1\\nbeta 2'")
        assert obs.output == "alpha 1\nbeta 2" and "alpha 1\nbeta 2" not in result.text
        assert "alpha 1\\nbeta 2" in result.text
        # a background task shows no output until it ends
        result, obs = bash("echo one; sleep 2", run_in_background=True)
        assert obs.background and obs.task_id
        time.sleep(0.5)
        running = adapter.call(call("task_output", cwd=str(ws), task_id=obs.task_id, block=False))
        assert bash_obs(running).running and bash_obs(running).output == ""
        done = adapter.call(call("task_output", cwd=str(ws), task_id=obs.task_id))
        assert not bash_obs(done).running and bash_obs(done).output == "one\n"
    finally:
        import psutil

        for pid in started:  # what this test's commands left running
            with contextlib.suppress(psutil.Error):
                psutil.Process(pid).kill()
        adapter.close()
        shutil.rmtree(ws, ignore_errors=True)


def test_mcp_shell_commands_outlive_a_killed_server() -> None:
    """BASH-SHUT-05 of peers/mcp-shell/expectations.toml, shown by killing the server."""
    import psutil

    need_example(SHELL_ENTRY, SHELL_PTY, install=SHELL_INSTALL)
    ws = Path(tempfile.mkdtemp(dir=temp_root())).resolve()
    before = {p.pid for p in psutil.Process().children()}
    adapter = McpAdapter(shell_command(), SHELL / "mapping.toml", call_timeout=60)
    adapter.start()
    survivor = 0
    try:
        servers = [p for p in psutil.Process().children() if p.pid not in before]
        assert len(servers) == 1, servers
        command = "echo $$ > running; sleep 60"
        started = adapter.call(call("bash", cwd=str(ws), command=command, run_in_background=True))
        assert bash_obs(started).background
        deadline = time.monotonic() + 10
        while not (ws / "running").is_file() or not (ws / "running").read_text().strip():
            assert time.monotonic() < deadline, "the command did not start"
            time.sleep(0.05)
        survivor = int((ws / "running").read_text())
        servers[0].kill()
        servers[0].wait(10)
        time.sleep(1)
        assert psutil_alive(survivor), "the command died with the server"
    finally:
        if survivor:
            with contextlib.suppress(psutil.Error):
                psutil.Process(survivor).kill()
        adapter.close()
        shutil.rmtree(ws, ignore_errors=True)


def test_output_shown_json_escaped_is_shown() -> None:
    """A JSON answer shows printed lines escaped; the presentation checks accept that layout."""
    output = 'alpha 1\nbeta "2"\n\u00e9\n'
    for text in (
        output,
        json.dumps({"stdout": output}),
        json.dumps({"stdout": output}, ensure_ascii=False),
    ):
        expect_in_order(ToolResult(({"type": "text", "text": text},)), [output.rstrip()], "it")
    for wrong in ("alpha 1 beta 2", json.dumps({"stdout": "beta 2\nalpha 1"})):
        with pytest.raises(AssertionError, match="as it is or JSON-escaped"):
            expect_in_order(ToolResult(({"type": "text", "text": wrong},)), ["alpha 1\nbeta"], "it")


# ---- mapping features: placeholders, defaults, transforms, env (no SDK needed)


def tool_mapping(table: dict[str, Any], tool: str = "read") -> Any:
    return parse_mapping({"tools": {tool: {"tool": "t", **table}}}).tools[tool]


def test_defaults_fill_only_what_is_absent_and_fixed_wins() -> None:
    grep = tool_mapping(
        {"defaults": {"path": "{cwd}", "mode": "files"}, "fixed": {"root": "{tmp}/x"}}, "grep"
    )
    sent = grep.translate({"pattern": "a"}, "/w/ws", tmp="/tmp")
    assert sent == {"pattern": "a", "path": "/w/ws", "mode": "files", "root": "/tmp/x"}
    sent = grep.translate({"pattern": "a", "path": "/elsewhere", "mode": "count"}, "/w", tmp="/t")
    assert sent["path"] == "/elsewhere" and sent["mode"] == "count"
    fixed = tool_mapping({"fixed": {"mode": "always"}}, "grep")
    assert fixed.translate({"pattern": "a", "mode": "mine"}, "/w")["mode"] == "always"


def test_env_goes_to_its_target_only_when_the_call_has_one() -> None:
    bash = tool_mapping({"env": "options.environment", "fixed": {"cwd": "{cwd}"}}, "bash")
    assert bash.sends_cwd
    sent = bash.translate({"command": "env"}, "/w", env={"A": "1"})
    assert sent == {"command": "env", "options": {"environment": {"A": "1"}}, "cwd": "/w"}
    assert "options" not in bash.translate({"command": "env"}, "/w", env=None)
    assert not tool_mapping({}, "bash").sends_cwd


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ("seconds_to_ms", 1.5, 1500),
        ("seconds_to_ms", "soon", "soon"),  # not converted: the server's validation answers
        ("ms_to_seconds", 2500, 2.5),
        ("ms_to_seconds", 3000, 3),
        ("ceil_int", 0.2, 1),
        ({"name": "ceil_int", "max": 300}, 1e9, 300),
        ("ceil_int", float("nan"), "nan"),
        ("one_to_zero_based", 1, 0),
        ("one_to_zero_based", 0, 0),  # not a canonical line number: passed as it is
        ("one_to_zero_based", -3, -3),
        ("zero_to_one_based", 0, 1),
        ("to_string", 3, "3"),
        ("to_string", True, "true"),
        ("negate", True, False),
        ("negate", "yes", "yes"),
        ({"name": "choose", "values": {"true": "background", "false": "fg"}}, True, "background"),
        ({"name": "choose", "values": {"true": "background"}}, "maybe", "maybe"),
    ],
)
def test_transforms(spec: Any, value: Any, expected: Any) -> None:
    result = parse_transform(spec, "t").apply(value, Context({}, "/"))
    if expected == "nan":
        assert result != result  # NaN passes unchanged
    else:
        assert result == expected and type(result) is type(expected)


def test_pages_spread_into_two_arguments() -> None:
    pages = parse_transform({"name": "pages_to_range", "start": "start", "count": "count"}, "t")
    assert pages.apply("3-5", Context({}, "/")) == Spread({"start": 3, "count": 3})
    zero = parse_transform(
        {"name": "pages_to_range", "start": "start", "count": "count", "base": 0}, "t"
    )
    assert zero.apply("2", Context({}, "/")) == Spread({"start": 1, "count": 1})
    assert pages.apply("5-3", Context({}, "/")) == Spread({"start": "5-3"})
    read = tool_mapping(
        {"transforms": {"pages": {"name": "pages_to_range", "start": "start", "count": "count"}}}
    )
    assert read.translate({"path": "/a.pdf", "pages": "2-4"}, "/") == {
        "path": "/a.pdf",
        "start": 2,
        "count": 3,
    }


def test_replace_all_becomes_the_count_found_on_disk(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x x x y")
    table = {
        "arguments": {"replace_all": "expected"},
        "transforms": {"replace_all": "replace_all_to_count"},
    }
    edit = tool_mapping(table, "edit")
    args = {"file_path": "f.txt", "old_string": "x", "new_string": "z", "replace_all": True}
    assert edit.translate(args, str(tmp_path))["expected"] == 3
    assert edit.translate({**args, "replace_all": False}, str(tmp_path))["expected"] == 1


# ---- result post-processing and observation builders (no SDK needed)


def answer(text: str, *, error: bool = False, structured: Any = None) -> dict[str, Any]:
    raw: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if structured is not None:
        raw["structuredContent"] = structured
    return raw


def built(tool: str, table: dict[str, Any], arguments: dict[str, Any], raw: dict[str, Any],
          cwd: str = "/w") -> ToolResult:  # fmt: skip
    mapping = tool_mapping(table, tool)
    call = ToolCall(tool, arguments, cwd)
    sent = mapping.translate(arguments, cwd)
    result = finish(mapping, call, sent, raw, prepare(mapping, call)).with_call(call)
    if "observation" in result.details:
        parse_observation(tool, result.details["observation"])
    return result


def test_text_lines_from_the_offset_sent_with_a_continuation() -> None:
    table = {
        "result": {
            "observation": "text_lines",
            "strip": [r"^File: .*\n", r"\n\[more: start_line=\d+\]\n?$"],
            "line_prefix": r"^\s*\d+\t",
            "continuation": {"pattern": r"start_line=(\d+)", "base": 0},
        },
        "transforms": {"offset": "one_to_zero_based"},
    }
    text = "File: a.txt\n   3\tthree\n   4\tfour\n[more: start_line=4]\n"
    result = built("read", table, {"path": "a.txt", "offset": 3, "limit": 2}, answer(text))
    obs = read_obs(result)
    assert obs.start_line == 3 and list(obs.lines) == ["three", "four"]
    assert obs.truncated and obs.next_offset == 5  # 0-based 4 is canonical line 5
    lines = {"result": {"observation": "text_lines", "complete_unless": ["limit"]}}
    plain = built("read", lines, {"path": "a"}, answer("a\r\nb"))
    assert list(read_obs(plain).lines) == ["a\r", "b"] and not read_obs(plain).truncated
    assert read_obs(plain).total_lines == 2  # no limit was sent: the whole file was shown
    assert (
        read_obs(built("read", lines, {"path": "a", "limit": 2}, answer("a\nb"))).total_lines
        is None
    )
    empty = built("read", lines, {"path": "a"}, answer(""))
    assert read_obs(empty).lines == ()
    # an error result of read carries no observation
    missing = built("read", table, {"path": "x"}, answer("ENOENT", error=True))
    assert missing.is_error and "observation" not in missing.details


def test_is_error_from_the_text_or_a_json_field() -> None:
    by_text = {"result": {"is_error": {"text": "^Error:"}}}
    assert built("write", by_text, {"path": "a"}, answer("Error: denied")).is_error
    assert not built("write", by_text, {"path": "a"}, answer("Wrote a")).is_error
    by_field = {
        "result": {
            "observation": "json_fields",
            "fields": {"exit_code": "exit_code", "output": ["stdout", "stderr"],
                       "timed_out": {"field": "status", "in": ["timeout"]},
                       "timeout_s": {"argument": "timeout_ms", "default": 60}},
            "is_error": [{"field": "status", "in": ["timeout"]},
                         {"field": "exit_code", "not_in": [0]}],
        },
        "arguments": {"timeout": "timeout_ms"},
    }  # fmt: skip
    ok = json.dumps({"status": "done", "exit_code": 0, "stdout": "a\n", "stderr": "b\n"})
    result = built("bash", by_field, {"command": "x"}, answer(ok))
    assert not result.is_error
    assert bash_obs(result).output == "a\nb\n" and bash_obs(result).timeout_s == 60
    failed = json.dumps({"status": "done", "exit_code": 2})
    assert built("bash", by_field, {"command": "x"}, answer(failed)).is_error
    late = built("bash", by_field, {"command": "x", "timeout": 5}, answer('{"status": "timeout"}'))
    assert late.is_error and bash_obs(late).timed_out and bash_obs(late).timeout_s == 5
    structured = built("bash", by_field, {"command": "x"}, answer("?", structured={"exit_code": 0}))
    assert bash_obs(structured).exit_code == 0


def test_path_lines_for_glob_and_grep() -> None:
    table = {"result": {"observation": "path_lines", "empty": "No matches found"}}
    glob = built("glob", table, {"pattern": "*", "path": "src"}, answer("a.py\n/abs/b.py\n"))
    assert list(glob_obs(glob).paths) == ["/w/src/a.py", "/abs/b.py"]
    none = built("glob", table, {"pattern": "*"}, answer("No matches found"))
    assert glob_obs(none).paths == ()
    files = built("grep", table, {"pattern": "x"}, answer("a.py\nb.py"))
    assert grep_obs(files).files == ("/w/a.py", "/w/b.py")
    content = built(
        "grep", table, {"pattern": "x", "output_mode": "content"}, answer("a.py:3:x = 1\na.py-4-y")
    )
    assert [(x.path, x.line, x.text, x.match) for x in grep_obs(content).lines] == [
        ("/w/a.py", 3, "x = 1", True),
        ("/w/a.py", 4, "y", False),
    ]
    counts = built("grep", table, {"pattern": "x", "output_mode": "count"}, answer("a.py:2"))
    assert [(c.path, c.count) for c in grep_obs(counts).counts] == [("/w/a.py", 2)]


def test_written_and_edited(tmp_path: Path) -> None:
    write = {"result": {"observation": "written"}}
    result = built("write", write, {"path": "n.txt", "content": "é\n"}, answer("ok"), str(tmp_path))
    assert write_obs(result).bytes_written == 3 and write_obs(result).created
    (tmp_path / "old.txt").write_text("x")
    again = built("write", write, {"path": "old.txt", "content": ""}, answer("ok"), str(tmp_path))
    assert not write_obs(again).created and write_obs(again).path == str(tmp_path / "old.txt")
    diff = "--- a\n+++ b\n@@ -4,3 +4,3 @@\n four\n-five\n+FIVE\n six\n"
    assert first_changed_line(diff) == 5 and first_changed_line("no diff") is None
    (tmp_path / "f.txt").write_text("x x x")
    edit = {"result": {"observation": "edited"}}
    args = {"file_path": "f.txt", "old_string": "x", "new_string": "y", "replace_all": True}
    edited = built("edit", edit, args, answer(diff), str(tmp_path))
    assert edit_obs(edited).replacements == 3 and edit_obs(edited).first_changed_line == 5
    multi = {"file_path": "f.txt", "edits": [{"old_string": "a", "new_string": "b"}] * 2}
    assert edit_obs(built("edit", edit, multi, answer("ok"), str(tmp_path))).replacements == 2


def test_json_rpc_errors_as_results_carry_a_nothing_ran_observation() -> None:
    table = {"result": {"observation": "json_fields", "fields": {"exit_code": "exit_code"},
                        "json_rpc_errors": "result"}}  # fmt: skip
    mapping = tool_mapping(table, "bash")
    call = ToolCall("bash", {"command": ""}, "/w")
    result = finish(mapping, call, {}, None, {}, (-32602, "command: too short")).with_call(call)
    assert result.is_error and result.text == "MCP error -32602: command: too short"
    assert bash_obs(result).exit_code is None and not bash_obs(result).running


# ---- configure routing, scripts, workspaces and HOME, against the echo server


def test_configure_is_routed_to_the_servers_own_tool_and_replayed_after_a_restart() -> None:
    need_sdk()
    mapping = {
        "manifest": {"settings": ["read.max_lines", "bash.default_timeout_s"],
                     "limits": {"read.max_lines": 100, "bash.default_timeout_s": 60}},
        "configure": {
            "tool": "set_config",
            "arguments": {"read.max_lines": "max_lines", "bash.default_timeout_s": "timeout_ms"},
            "transforms": {"bash.default_timeout_s": "seconds_to_ms"},
        },
        "tools": {"read": {"tool": "get_config"}, "glob": {"tool": "die"}},
    }  # fmt: skip
    adapter = McpAdapter(echo_command(), mapping, call_timeout=20)
    manifest = adapter.start()
    try:
        assert manifest.settings == {"read.max_lines", "bash.default_timeout_s"}
        applied = adapter.configure({"read.max_lines": 3, "bash.default_timeout_s": 2})
        assert applied == {"read.max_lines": 3, "bash.default_timeout_s": 2}
        config = adapter.call(call("read")).details["config"]
        assert config == {"max_lines": 3, "timeout_ms": 2000}
        with pytest.raises(AdapterError):
            adapter.call(call("glob"))  # the server dies
        # the new server got the same configuration before its first call
        assert adapter.call(call("read")).details["config"] == config
    finally:
        adapter.close()


SCRIPT = """
from pytest_agenttools.connect.mcp.script import ServerError

async def read(call, session):
    first = await session.call("show", {"path": call.arguments["path"]})
    token = first.json()["received"]["path"]
    second = await session.call("reply", {"text": f"line one\\nfrom {token}\\n"})
    session.state["calls"] = session.state.get("calls", 0) + 1
    return session.result(second.text, observation={
        "start_line": 1, "lines": second.text.splitlines(), "calls": session.state["calls"]})

async def grep(call, session):
    try:
        await session.call("rpc_fail", {})
    except ServerError as error:
        return session.result(f"refused: {error.code}", is_error=True)
    return session.result("accepted")

async def glob(call, session):
    reply = await session.mapped(call)
    return session.finish(call, reply)

async def edit(call, session):
    raise KeyError("a bug in the script")
"""


def test_a_script_makes_several_calls_and_carries_values_between_them(tmp_path: Path) -> None:
    need_sdk()
    (tmp_path / "my_mapping.py").write_text(SCRIPT)
    (tmp_path / "mapping.toml").write_text(
        'script = "my_mapping.py"\n'
        '[tools.glob]\ntool = "reply"\narguments = { pattern = "text" }\n'
        'result = { observation = "path_lines" }\n'
    )
    adapter = McpAdapter(echo_command(), tmp_path / "mapping.toml", call_timeout=20)
    manifest = adapter.start()
    try:
        assert manifest.tools == {"read", "grep", "glob", "edit"}
        first = adapter.call(call("read", path="x"))
        assert first.text == "line one\nfrom x\n"
        assert read_obs(first).lines == ("line one", "from x")
        assert adapter.call(call("read", path="y")).details["observation"]["calls"] == 2
        refused = adapter.call(call("grep", pattern="p"))
        assert refused.is_error and refused.text.startswith("refused: -32")
        listed = adapter.call(call("glob", pattern="a.txt\nb.txt"))
        assert glob_obs(listed).paths == ("/work/ws/a.txt", "/work/ws/b.txt")
        with pytest.raises(AdapterError, match=r"script .*my_mapping.py raised in edit: KeyError"):
            adapter.call(call("edit", file_path="f", old_string="a", new_string="b"))
    finally:
        adapter.close()


def test_bad_scripts_are_named(tmp_path: Path) -> None:
    (tmp_path / "sync.py").write_text("def read(call, session):\n    pass\n")
    with pytest.raises(ValueError, match="read must be an async def"):
        parse_mapping({"script": "sync.py"}, base_dir=str(tmp_path))
    (tmp_path / "empty.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match="defines no mapping function"):
        parse_mapping({"script": "empty.py"}, base_dir=str(tmp_path))
    with pytest.raises(ValueError, match="does not exist"):
        parse_mapping({"script": "missing.py"}, base_dir=str(tmp_path))


def test_bash_that_would_run_outside_the_workspace_is_not_run() -> None:
    need_sdk()
    mapping = {"tools": {"bash": {"tool": "slow"}, "read": {"tool": "show"}}}
    adapter = McpAdapter(echo_command(), mapping, call_timeout=20)
    try:
        adapter.start()
        assert "bash" in adapter.not_run and "{cwd}" in adapter.not_run["bash"]
        with pytest.raises(ProtocolError, match="would run commands in the server's own"):
            adapter.call(call("bash", command="true"))
    finally:
        adapter.close()


def test_not_run_clauses_are_skipped_with_the_adapters_reason(pytester: pytest.Pytester) -> None:
    need_sdk()
    mapping = pytester.makefile(".toml", mapping='[tools.bash]\ntool = "slow"\n')
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.agenttools_clause("BASH-CWD-01")
        def test_bash(agenttools_client):
            agenttools_client.bash(command="true")
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rs", f"--agenttools-mcp={echo_command()}",
        f"--agenttools-mcp-mapping={mapping}",
    )  # fmt: skip
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not run: bash through MCP adapter*test's workspace*"])


def test_each_server_gets_a_private_home_and_directory_removed_after() -> None:
    need_sdk()
    mapping = {"tools": {"read": {"tool": "where"}}}
    adapter = McpAdapter(echo_command(), mapping, call_timeout=20)
    adapter.start()
    try:
        where = adapter.call(call("read")).details
        assert where["home"] != os.environ.get("HOME") and os.path.isdir(where["home"])
        assert where["cwd"] != os.getcwd() and os.path.isdir(where["cwd"])
    finally:
        adapter.close()
    assert not os.path.exists(where["home"]) and not os.path.exists(where["cwd"])
    inherit = {"server": {"home": "inherit", "directory": "inherit"}, **mapping}
    adapter = McpAdapter(echo_command(), inherit, call_timeout=20)
    adapter.start()
    try:
        where = adapter.call(call("read")).details
        assert where["home"] == os.environ.get("HOME") and where["cwd"] == os.getcwd()
    finally:
        adapter.close()


def test_cwd_in_the_command_starts_a_server_per_workspace(tmp_path: Path) -> None:
    need_sdk()
    mapping = {"tools": {"read": {"tool": "where"}, "bash": {"tool": "slow"}}}
    adapter = McpAdapter(f"{echo_command()} --root {{cwd}}", mapping, call_timeout=20)
    adapter.start()
    assert adapter.not_run == {}  # commands run where the server runs: the workspace
    spaces = [tmp_path / name for name in "abcdefghijk"[: MAX_WORKSPACE_SERVERS + 1]]
    try:
        seen = []
        for space in spaces:
            space.mkdir()
            first = adapter.call(call("read", cwd=str(space))).details
            again = adapter.call(call("read", cwd=str(space))).details
            assert first["cwd"] == str(space) and again["pid"] == first["pid"]
            seen.append(first["pid"])
        assert len(set(seen)) == len(spaces)  # one server per workspace
        # one workspace more than the pool holds: the least used was stopped
        assert len(adapter._servers) <= MAX_WORKSPACE_SERVERS
    finally:
        adapter.close()
    assert not any(psutil_alive(pid) for pid in seen)


def test_directory_workspace_starts_a_server_per_workspace_without_cwd_in_the_command(
    tmp_path: Path,
) -> None:
    """``[server] directory = "workspace"``: a server with no root argument, launched in each
    workspace; a call whose cwd is missing still reaches a server (launched elsewhere, with
    nothing in its command naming the workspace), whose answer is judged (BASH-CWD-02); and
    ``server_pid`` names the process that serves a workspace (BASH-SHUT-05 kills it)."""
    need_sdk()
    mapping = {"server": {"directory": "workspace"},
               "tools": {"read": {"tool": "where"}, "bash": {"tool": "slow"}}}  # fmt: skip
    adapter = McpAdapter(echo_command(), mapping, call_timeout=20)
    adapter.start()
    assert adapter.per_workspace and adapter.not_run == {}
    try:
        space = tmp_path / "a"
        space.mkdir()
        served = adapter.call(call("read", cwd=str(space))).details
        assert served["cwd"] == str(space)
        assert adapter.server_pid(call("read", cwd=str(space))) == served["pid"]
        assert adapter.server_pid(call("read", cwd=str(tmp_path / "none yet"))) is None
        missing = str(tmp_path / "gone")
        elsewhere = adapter.call(call("read", cwd=missing)).details
        assert elsewhere["pid"] != served["pid"] and elsewhere["cwd"] != missing
        assert not os.path.exists(missing)
    finally:
        adapter.close()
    assert not psutil_alive(served["pid"])
    with pytest.raises(ValueError, match="'workspace' \\(one server per workspace"):
        parse_mapping({"server": {"directory": "theirs"}, "tools": {"read": {"tool": "x"}}})


# ---- no server outlives the adapter


def psutil_alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_close_kills_a_server_that_ignores_sigterm_and_everything_it_started() -> None:
    need_sdk()
    mapping = {"tools": {"read": {"tool": "spawn"}, "bash": {"tool": "slow", "fixed": {
        "directory": "{cwd}"}}}}  # fmt: skip
    adapter = McpAdapter(echo_command("--stubborn"), mapping, call_timeout=20)
    adapter.start()
    spawned = adapter.call(call("read")).details
    server = adapter._servers[None]
    pids = [spawned["server"], *spawned["children"]]
    assert all(psutil_alive(pid) for pid in pids)
    assert {p.pid for p in marked_processes(server.mark)} >= set(pids)
    started = time.monotonic()
    adapter.close()
    # SDK: stdin closed, 2 s, SIGTERM to the group (ignored), 2 s, SIGKILL; then the mark sweep
    # ends the child in a session of its own
    assert time.monotonic() - started < 30
    assert [pid for pid in pids if psutil_alive(pid)] == []
    assert marked_processes(server.mark) == []


def test_a_retired_server_is_waited_for_at_close() -> None:
    need_sdk()
    adapter = McpAdapter(echo_command("--stubborn"), ECHO_MAPPING, call_timeout=1)
    adapter.start()
    spawned = adapter.call(call("read", path="a")).details  # the server is alive
    assert spawned["received"]["path"] == "/work/ws/a"
    first = adapter._servers[None]
    mark = first.mark
    with pytest.raises(AdapterError, match=r"within [0-9.]+ s"):
        adapter.call(call("bash", command=30))
    adapter.close()  # at once: the retired server is still being stopped in the background
    assert marked_processes(mark) == []


LAST_TEST_TIMES_OUT = """
def test_last(agenttools_client):
    agenttools_client.bash(command=30)
"""


def test_no_server_outlives_a_session_whose_last_test_timed_out(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    need_sdk()
    pidfile = tmp_path / "pids"
    mapping = pytester.makefile(
        ".toml",
        mapping='[tools.bash]\ntool = "slow"\narguments = { command = "seconds" }\n'
        'fixed = { directory = "{cwd}" }\n',
    )
    pytester.makepyfile(LAST_TEST_TIMES_OUT)
    command = echo_command("--stubborn", "--pidfile", str(pidfile))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--agenttools-mcp={command}",
        f"--agenttools-mcp-mapping={mapping}", "--agenttools-call-timeout=1",
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no answer to bash(command=30)*within * s*"])
    pids = [json.loads(line) for line in pidfile.read_text().split()]
    assert pids, "the server wrote its pid"
    assert [pid for pid in pids if psutil_alive(pid)] == []
    import psutil

    leftovers = []
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if str(pidfile) in " ".join(proc.info["cmdline"] or []):
                leftovers.append(proc.pid)
    assert leftovers == []


def test_the_mapping_examples_in_the_docs_are_valid() -> None:
    text = (REPO / "docs" / "mcp-adapter.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```toml\n")[1:]]
    full = next(b for b in blocks if "[tools.read.result]" in b)
    data = tomllib.loads(full.replace('script = "my_mapping.py"', ""))
    mapping = parse_mapping(data)
    read = mapping.tools["read"]
    assert read.result.observation == "text_lines" and read.result.json_rpc_errors == "result"
    assert mapping.configure is not None and mapping.manifest["settings"] == ["read.max_lines"]
    snippet = next(b for b in blocks if b.startswith("[tools.bash.result]"))
    bash = parse_mapping(
        {"tools": {"bash": {"tool": "run", **tomllib.loads(snippet)["tools"]["bash"]}}}
    )
    assert bash.tools["bash"].result.observation == "json_fields"
