"""A tool library that prints to stdout breaks neither ``agenttools call`` nor ``agenttools
serve``: their stdout belongs to their own output (one JSON document; the JSON-RPC wire), and
what the library prints, through ``print`` or straight to fd 1, lands on stderr.

The library is ``tests/servers/printing_impl.py``: the reference, talking when it is imported,
made, called and shut down.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from pytest_agenttools.connect.mcp.client import McpAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.assertions import read_obs
from pytest_agenttools.harness.contract import ToolCall
from tests.support import REPO, SERVERS, run_agenttools

FACTORY = "printing_impl:create"
EXE = Path(sys.executable).parent / "agenttools"
TALK = ("printing_impl: imported", "printing_impl: calling read", "straight to fd 1")


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SERVERS)}


def test_call_prints_only_its_json_on_stdout(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    proc = run_agenttools(
        "call", "read", '{"path": "a.txt"}', "--impl", FACTORY, cwd=tmp_path, env=env(),
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    answer = json.loads(proc.stdout)  # nothing but the one JSON document
    assert answer["observation"]["lines"] == ["one", "two"]
    for line in (*TALK, "printing_impl: shutting down"):
        assert line in proc.stderr, proc.stderr


def test_serve_keeps_the_wire_clean(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    command = f"env PYTHONPATH={SERVERS} {EXE} serve --impl {FACTORY}"
    adapter = StdioAdapter(command, call_timeout=60)
    adapter.start()
    try:
        for _ in range(2):  # the server serves on after the library printed mid-call
            result = adapter.call(ToolCall("read", {"path": "a.txt"}, str(tmp_path)))
            assert read_obs(result).lines == ("one", "two")
    finally:
        adapter.close()


def test_serve_mcp_keeps_the_wire_clean(tmp_path: Path) -> None:
    if importlib.util.find_spec("mcp") is None:
        pytest.skip("the mcp SDK is not installed (pip install 'pytest-agenttools[mcp]')")
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    command = f"env PYTHONPATH={SERVERS} {EXE} serve --mcp --impl {FACTORY} --root {{cwd}}"
    mapping = REPO / "examples" / "mcp-reference" / "mapping.toml"
    adapter = McpAdapter(command, mapping, call_timeout=60)
    adapter.start()
    try:
        for _ in range(2):
            result = adapter.call(ToolCall("read", {"path": "a.txt"}, str(tmp_path)))
            assert read_obs(result.with_call(ToolCall("read", {}, ""))).lines == ("one", "two")
    finally:
        adapter.close()
