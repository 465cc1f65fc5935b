"""The reference as an MCP tool server (``agenttools serve --mcp``), through the MCP adapter.

The server lists the canonical tools, answers with the reference's own result (details carried
in structuredContent), resolves paths and runs commands in its ``--root``, takes the call's env
and the kit's settings, and refuses clearly what MCP cannot carry. The last test runs a
representative part of the conformance suite against it, strictly, with the expectations of
``examples/mcp-reference`` (the whole suite: docs/mcp-adapter.md, The reference over MCP).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
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

from pytest_agenttools.connect.base import AdapterError, ProtocolError
from pytest_agenttools.connect.inprocess import REFERENCE_FACTORY, InProcessAdapter
from pytest_agenttools.connect.mcp.client import McpAdapter, load_mapping, temp_root
from pytest_agenttools.harness.assertions import read_obs, write_obs
from pytest_agenttools.harness.contract import Manifest, ToolCall
from pytest_agenttools.implementations.reference import create
from pytest_agenttools.implementations.reference.mcp_server import flat_settings, tool_definitions
from tests.support import REPO, SERVERS, run_agenttools

EXAMPLE = REPO / "examples" / "mcp-reference"
COMMAND = "agenttools serve --mcp --root {cwd}"
REQUIRED = os.environ.get("AGENTTOOLS_REQUIRE_MCP") == "1"
CANONICAL = ["read", "write", "edit", "grep", "glob", "bash", "task_output"]


def need_sdk() -> None:
    if importlib.util.find_spec("mcp") is None:
        if REQUIRED:
            pytest.fail("the mcp SDK is not installed: pip install 'pytest-agenttools[mcp]'")
        pytest.skip("the mcp SDK is not installed (pip install 'pytest-agenttools[mcp]')")


# ---- no server needed


def test_the_mapping_declares_the_references_own_manifest() -> None:
    """The example mapping must not drift from what the reference declares in process."""
    mapping = load_mapping(EXAMPLE / "mapping.toml")
    own = create().manifest()
    # confinement is not carried over MCP (its settings are flattened to limit names): the
    # mapping leaves the confine.* features and the confine.roots setting out
    own["features"] = [f for f in own["features"] if not f.startswith("confine.")]
    own["settings"] = [s for s in own["settings"] if s != "confine.roots"]
    declared = Manifest.from_wire({"name": own["name"], "version": own["version"],
                                   **mapping.manifest})  # fmt: skip
    assert declared == Manifest.from_wire(own)
    assert set(mapping.tools) == set(CANONICAL)
    for name, table in mapping.tools.items():
        assert table.tool == name and not table.arguments and not table.paths
        assert table.result.observation == "structured"
    assert mapping.configure is not None
    assert set(mapping.configure.arguments) == set(own["settings"])


def test_tool_list_and_settings() -> None:
    listed = tool_definitions(CANONICAL)
    assert [t["name"] for t in listed] == [*CANONICAL, "agenttools_configure"]
    for tool in listed:
        schema = tool["inputSchema"]
        # permissive: the implementation checks arguments, not the transport
        assert schema["type"] == "object" and schema["additionalProperties"] is True
        assert "required" not in schema
        assert all("type" not in p for p in schema.get("properties", {}).values())
    read = next(t for t in listed if t["name"] == "read")
    assert {"path", "offset", "limit", "pages"} <= set(read["inputSchema"]["properties"])
    assert flat_settings({"read": {"max_lines": 3}, "bash.kill_grace_s": 1}) == {
        "read.max_lines": 3,
        "bash.kill_grace_s": 1,
    }


def test_root_without_mcp_is_refused(tmp_path: Path) -> None:
    proc = run_agenttools("serve", "--root", str(tmp_path), cwd=tmp_path, timeout=60)
    assert proc.returncode != 0 and "--root is for --mcp" in proc.stderr


def test_a_missing_sdk_names_the_extra(tmp_path: Path) -> None:
    hidden = tmp_path / "hide"
    (hidden / "mcp").mkdir(parents=True)
    (hidden / "mcp" / "__init__.py").write_text("raise ImportError(\"No module named 'mcp'\")\n")
    env = {**os.environ, "PYTHONPATH": str(hidden)}
    exe = Path(sys.executable).parent / "agenttools"
    proc = subprocess.run(
        [str(exe), "serve", "--mcp"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "pip install 'pytest-agenttools[mcp]'" in proc.stderr, proc.stderr


# ---- the server through the adapter


@pytest.fixture(scope="module")
def served() -> Iterator[McpAdapter]:
    need_sdk()
    adapter = McpAdapter(COMMAND, EXAMPLE / "mapping.toml", call_timeout=30)
    adapter.start()
    yield adapter
    adapter.close()


@pytest.fixture
def ws() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agt-mcpref-", dir=temp_root()))
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    yield root
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def call(tool: str, ws: Path, **arguments: Any) -> ToolCall:
    return ToolCall(tool, arguments, str(ws))


def test_results_are_the_references_own(served: McpAdapter, ws: Path) -> None:
    assert set(CANONICAL) <= set(served.server_tools)
    inproc = InProcessAdapter(REFERENCE_FACTORY)
    inproc.start()
    try:
        for tool, arguments in (
            ("read", {"path": "a.txt", "offset": 2}),
            ("read", {"path": "missing.txt"}),
            ("grep", {"pattern": "t", "output_mode": "content"}),
            ("glob", {"pattern": "*.txt"}),
        ):
            here = inproc.call(call(tool, ws, **arguments))
            there = served.call(call(tool, ws, **arguments))
            assert (there.content, there.is_error, there.details) == (
                here.content,
                here.is_error,
                here.details,
            ), tool
        written = served.call(call("write", ws, path="sub/new.txt", content="x\n"))
        assert not written.is_error and (ws / "sub" / "new.txt").read_bytes() == b"x\n"
        assert write_obs(written).path == str(ws / "sub" / "new.txt")
    finally:
        inproc.close()


def test_commands_run_in_the_root_with_the_calls_env_and_the_mark(
    served: McpAdapter, ws: Path
) -> None:
    shown = served.call(
        call("bash", ws, command="pwd; echo ${PYTEST_AGENTTOOLS_MCP_SERVER:+marked}")
    )
    assert shown.text.split() == [str(ws), "marked"], shown.text
    env = ToolCall(
        "bash",
        {"command": "echo $ONLY_HERE"},
        str(ws),
        {"ONLY_HERE": "yes", "PATH": os.environ["PATH"]},
    )
    assert served.call(env).text.strip() == "yes"


def test_settings_reach_the_reference_and_are_restored(served: McpAdapter, ws: Path) -> None:
    (ws / "many.txt").write_text("".join(f"{i}\n" for i in range(10)))
    assert served.configure({"read.max_lines": 3}) == {"read.max_lines": 3}
    try:
        cut = read_obs(served.call(call("read", ws, path="many.txt")))
        assert list(cut.lines) == ["0", "1", "2"] and cut.next_offset == 4
    finally:
        served.configure({"read.max_lines": 2000})
    assert len(read_obs(served.call(call("read", ws, path="many.txt"))).lines) == 10


def test_a_cancel_reaches_the_command(served: McpAdapter, ws: Path) -> None:
    pending = served.submit(call("bash", ws, command="echo $$ > pid; exec sleep 60"))
    deadline = time.monotonic() + 20
    while not (ws / "pid").is_file() or not (ws / "pid").read_text().strip():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    pid = int((ws / "pid").read_text())
    pending.cancel()
    result = pending.result(10)
    assert result.is_error and result.details.get("cancelled") is True
    with contextlib.suppress(psutil.NoSuchProcess):
        psutil.Process(pid).wait(10)  # raises TimeoutExpired while the command lives on
    assert not psutil.pid_exists(pid)


def test_what_the_server_cannot_answer_is_a_clear_error(ws: Path) -> None:
    """A lone surrogate in a result, which MCP cannot carry: the server answers a JSON-RPC error
    that says where, and serves on (in process the same result passes)."""
    need_sdk()
    (ws / "surrogate.txt").write_text("x\n")
    servers = SERVERS
    exe = Path(sys.executable).parent / "agenttools"
    command = f"env PYTHONPATH={servers} {exe} serve --mcp --impl surrogate_impl:create "
    adapter = McpAdapter(command + "--root {cwd}", EXAMPLE / "mapping.toml", call_timeout=30)
    adapter.start()
    try:
        with pytest.raises(ProtocolError) as info:
            adapter.call(call("read", ws, path="surrogate.txt"))
        assert info.value.code == -32603
        assert "result.content[0].text holds a lone surrogate" in str(info.value)
        assert "cannot be carried over MCP" in str(info.value)
        after = read_obs(adapter.call(call("read", ws, path="a.txt")))
        assert list(after.lines) == ["one", "two", "three"]
    finally:
        adapter.close()


def test_a_malformed_env_is_a_protocol_error_as_over_stdio(served: McpAdapter, ws: Path) -> None:
    bad = ToolCall("bash", {"command": "true"}, str(ws), {"A": 1})  # type: ignore[dict-item]
    with pytest.raises(ProtocolError) as info:
        served.call(bad)
    assert info.value.code == -32602 and "env" in str(info.value)


def test_an_unknown_tool_is_a_protocol_error_as_over_stdio(served: McpAdapter, ws: Path) -> None:
    adapter = McpAdapter(
        COMMAND,
        {"tools": {"read": {"tool": "nope-not-listed"}}, "manifest": {"tools": ["read"]}},
    )
    with pytest.raises(AdapterError, match="names MCP tools the server does not list"):
        adapter.start()


# ---- the conformance suite over MCP


#: a representative part: read's arguments and paths, edit's multi-edit and arguments, bash's
#: output, environment, background tasks and leftovers, the robustness clauses that judge what
#: MCP can carry, and a clause of each kind MCP cannot carry (expected)
PARTS = [
    "test_hostile_paths", "test_bad_arguments_are_errors", "test_multi", "test_edits",
    "test_success_exact_output", "test_layer_a_always", "test_background_returns_task_id",
    "test_leftovers_of_finished_command", "test_top_level_split",
    "test_nul_and_lone_surrogates", "test_unknown_tool", "test_unknown_methods",
]  # fmt: skip
SUBSET = " or ".join(PARTS)
#: the expectations of that part (strict: each must match a test, and that test must fail)
CHOSEN = ("hostile_paths", "ROBUST-ARGS-02", "tag:bash.command_analysis")


@pytest.mark.kit_long(77)
def test_the_suite_passes_over_mcp_but_for_the_expected(tmp_path: Path) -> None:
    need_sdk()
    entries = tomllib.loads((EXAMPLE / "expectations.toml").read_text())
    for entry in entries["xfail"]:
        assert "cannot" in entry["reason"], f"{entry['id']}: name the transport limit"
    chosen = [e for e in entries["xfail"] if any(part in e["id"] for part in CHOSEN)]
    expectations = tmp_path / "expectations.toml"
    expectations.write_text(
        "".join(f'[[xfail]]\nid = {json.dumps(e["id"])}\nreason = {json.dumps(e["reason"])}\n'
                for e in chosen)
    )  # fmt: skip
    proc = run_agenttools(
        "run", "--mcp", COMMAND, "--mcp-mapping", str(EXAMPLE / "mapping.toml"),
        "--expectations", str(expectations), "--strict", "--tools", "read,edit,bash,robust",
        "--report-json", "report.json", "--", "-n", "2", "-k", SUBSET,
        cwd=tmp_path, timeout=900,
    )  # fmt: skip
    report = json.loads((tmp_path / "report.json").read_text())
    assert proc.returncode == 0, proc.stdout[-6000:]
    summary = report["summary"]
    assert summary["failed"] == summary["error"] == summary["xpassed"] == 0
    # 33 tests today; each part of the subset ran, so a renamed test cannot leave it hollow
    assert summary["xfailed"] == 5 and summary["passed"] >= 28, summary
    ran = [test["id"] for test in report["tests"]]
    assert [part for part in PARTS if not any(part in test for test in ran)] == []
    assert report["implementation"]["adapter"] == f"MCP adapter `{COMMAND}`"


def test_per_workspace_servers_are_judged_on_a_missing_cwd_and_a_hard_kill(
    tmp_path: Path,
) -> None:
    """With a server per workspace, BASH-CWD-02's call in a missing directory reaches a server
    (started elsewhere) instead of failing to start one, and BASH-SHUT-05 kills the server that
    serves the test's workspace (not the one that answered initialize, long stopped)."""
    need_sdk()
    proc = run_agenttools(
        "run", "--mcp", COMMAND, "--mcp-mapping", str(EXAMPLE / "mapping.toml"),
        "--clauses", "BASH-CWD-02,BASH-SHUT-05", "--report-json", "report.json",
        cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-6000:]
    verdicts = json.loads((tmp_path / "report.json").read_text())["clauses"]
    assert {c: verdicts[c] for c in ("BASH-CWD-02", "BASH-SHUT-05")} == {
        "BASH-CWD-02": "passed",
        "BASH-SHUT-05": "passed",
    }
