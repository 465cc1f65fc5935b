"""The MCP client adapter: mapping, translation, result conversion, failures, and a real server.

The translation and conversion tests need nothing. The adapter tests start a tiny MCP server
written with the SDK (``tests/servers/mcp_echo_server.py``) and need the ``mcp`` package; the last
test runs the suite against @modelcontextprotocol/server-filesystem from the npm registry with
``docs/examples/mcp-filesystem``. Both skip when what they need is missing, unless
AGENTTOOLS_REQUIRE_MCP=1 (set in CI) makes the absence a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.adapters.base import AdapterError, ProtocolError
from pytest_agenttools.adapters.mcp import (
    McpAdapter,
    TranslationConflict,
    convert_result,
    load_mapping,
    parse_mapping,
    parse_target,
    temp_root,
    unencodable,
)
from pytest_agenttools.contract import ContractViolation, ToolCall

pytest_plugins = ["pytester"]

REPO = Path(__file__).parent.parent
ECHO = Path(__file__).parent / "servers" / "mcp_echo_server.py"
EXAMPLE = REPO / "docs" / "examples" / "mcp-filesystem"
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
        "bash": {"tool": "slow", "arguments": {"command": "seconds"}},
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
        ({"tool": {}}, "unknown top-level keys"),
        ({"tools": {"frobnicate": {"tool": "x"}}}, "not a canonical tool"),
        ({"tools": {"read": {}}}, "'tool'"),
        ({"tools": {"read": {"tool": "x", "argument": {}}}}, "unknown keys"),
        ({"tools": {"read": {"tool": "x", "arguments": {"path": "a..b"}}}}, "arguments.path"),
        ({"tools": {"read": {"tool": "x", "paths": "path"}}}, "paths must be a list"),
        ({"tools": {"read": {"tool": "x", "items": {"e": {"a": 1}}}}}, "items.e"),
        ({"manifest": {"settings": ["x"]}, "tools": {"read": {"tool": "x"}}}, "settings"),
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
    adapter = McpAdapter(echo_command(), ECHO_MAPPING, {"version": "9.9", "limits": {"x": 1}})
    try:
        manifest = adapter.start()
    finally:
        adapter.close()
    assert manifest.name == "echo-server"  # the server's own name: the mapping gives none
    assert manifest.version == "9.9"  # the --agenttools-manifest file wins
    assert manifest.tools == frozenset(ECHO_MAPPING["tools"])
    assert manifest.features == frozenset({"edit.multi"})
    assert manifest.limits == {"read.max_lines": 7, "x": 1}
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
    raw = ToolCall(tool="read", arguments=["not", "an", "object"], cwd="/")  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="must be an object"):
        echo.call(raw)
    # none of that touched the server
    assert not echo.call(call("read", path="still-alive")).is_error


def test_cancel_ends_the_call_with_an_aborted_result(echo: McpAdapter) -> None:
    pending = echo.submit(call("bash", command=30))
    time.sleep(0.5)
    started = time.monotonic()
    pending.cancel()
    result = pending.result(5)
    assert time.monotonic() - started < 5
    assert pending.done()
    assert result.is_error and "cancelled" in result.text and result.details == {"cancelled": True}
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
            AdapterError, match=r"no answer to bash\(command=30\) \(MCP tool 'slow'\) within 1 s"
        ):
            adapter.call(call("bash", command=30))
        assert time.monotonic() - started < 10
        assert adapter.restarts == 1
        assert not adapter.call(call("read", path="next")).is_error
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
    assert adapter._connection is None  # the server was stopped

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
    from pytest_agenttools.cli import build_parser, main

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
        "import sys, pytest_agenttools.plugin, pytest_agenttools.session, "
        "pytest_agenttools.options, pytest_agenttools.cli; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# ---- a real server from the npm registry, with its expectations (run in CI)


def test_server_filesystem_deviations_are_exactly_the_expected_ones(tmp_path: Path) -> None:
    entry = (
        EXAMPLE
        / "node_modules"
        / "@modelcontextprotocol"
        / "server-filesystem"
        / "dist"
        / "index.js"
    )
    if not entry.is_file() or not shutil.which("node") or importlib.util.find_spec("mcp") is None:
        if REQUIRED:
            pytest.fail(
                "server-filesystem or the mcp SDK is missing: run `npm ci --ignore-scripts` in "
                "docs/examples/mcp-filesystem and install pytest-agenttools[mcp]"
            )
        pytest.skip("server-filesystem is not installed (npm ci in docs/examples/mcp-filesystem)")
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    expectations = EXAMPLE / "expectations.toml"
    proc = subprocess.run(
        [
            exe,
            "run",
            "--mcp",
            f"node {entry} {{tmp}}",
            "--mcp-mapping",
            str(EXAMPLE / "mapping.toml"),
            "--expectations",
            str(expectations),
            "--strict",
            "--report-json",
            "mcp.json",
            "--",
            "-n",
            "2",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads((tmp_path / "mcp.json").read_text())
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert report["implementation"]["name"] == "server-filesystem"
    assert report["implementation"]["adapter"].startswith("MCP adapter `node ")
    summary = report["summary"]
    assert summary["failed"] == 0 and summary["error"] == 0 and summary["xpassed"] == 0
    assert summary["passed"] >= 50, "read, write and edit must really run"
    assert summary["xfailed"] >= 20, (
        "the server's real deviations must show up as expected failures"
    )
    assert report["expectations"]["stale"] == [] and report["expectations"]["unmatched"] == []
    entries = tomllib.loads(expectations.read_text())
    for found in entries["xfail"] + entries["skip"]:
        assert len(found["reason"]) > 20, f"{found['id']}: say which server behaviour breaks it"
