"""The extra protocol method ``bash/analyze`` through both adapters, and shutdown over stdio."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools import Manifest, ProtocolError, ToolCall, Workspace
from pytest_agenttools.connect.stdio import StdioAdapter
from pytest_agenttools.harness.client import ToolClient
from tests.support import REFERENCE_STDIO


def test_analyze_same_answer_both_ways(reference: Any) -> None:
    answer = reference.request("bash/analyze", {"command": "git status && echo $(id)"})
    assert answer["class"] == "require-human"
    assert [p["class"] for p in answer["parts"]] == ["reusable", "require-human"]
    assert answer["keepalive"] is False


def test_unknown_method_is_a_protocol_error(reference: Any) -> None:
    with pytest.raises(ProtocolError) as caught:
        reference.request("bash/no-such-method", {})
    assert caught.value.code == -32601


def test_bad_params_are_a_protocol_error(reference: Any) -> None:
    with pytest.raises(ProtocolError) as caught:
        reference.request("bash/analyze", {"command": 7})
    assert caught.value.code == -32602


def test_client_analyze(reference: Any, tmp_path: Path) -> None:
    client = ToolClient(reference, reference.start(), Workspace(tmp_path))
    assert client.analyze("nohup sleep 1 &")["keepalive"] is True


def test_client_fails_when_the_method_is_missing(tmp_path: Path) -> None:
    """A declared feature whose method the adapter cannot send fails; it never skips."""

    class Bare:
        def describe(self) -> str:
            return "bare adapter"

        def request(self, method: str, params: Any = None) -> Any:
            raise ProtocolError(f"unknown method {method}", -32601)

    client = ToolClient(Bare(), Manifest(name="bare", version="0"), Workspace(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="bash/analyze"):
        client.analyze("ls")


def test_stdio_shutdown_ends_background_tasks(tmp_path: Path) -> None:
    adapter = StdioAdapter(REFERENCE_STDIO, call_timeout=30)
    adapter.start()
    adapter.configure({"bash.kill_grace_s": 0.3})
    command = "echo $$ >> pids; setsid sleep 60 & echo $! >> pids; wait"
    call = ToolCall("bash", {"command": command, "run_in_background": True}, str(tmp_path))
    assert not adapter.call(call, 30).is_error
    deadline = time.monotonic() + 10
    pids: list[int] = []
    while len(pids) < 2 and time.monotonic() < deadline:
        path = tmp_path / "pids"
        pids = [int(w) for w in path.read_text().split()] if path.exists() else []
        time.sleep(0.02)
    adapter.close()
    alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]
    for pid in alive:
        os.kill(pid, 9)
    assert len(pids) == 2 and not alive
