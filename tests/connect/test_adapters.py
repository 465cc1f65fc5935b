"""Both adapters: same outcomes for the reference, and clear errors when a child misbehaves."""

from __future__ import annotations

import shlex
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools import AdapterError, ProtocolError, ToolCall
from pytest_agenttools.connect.base import wait_within
from pytest_agenttools.connect.inprocess import InProcessAdapter
from pytest_agenttools.connect.stdio import StdioAdapter
from tests.support import REFERENCE_STDIO, SERVERS

SERVER = SERVERS / "fake_server.py"
FAKE = f"{shlex.quote(sys.executable)} {shlex.quote(str(SERVER))}"


@pytest.fixture
def fake() -> Iterator[StdioAdapter]:
    adapter = StdioAdapter(FAKE, call_timeout=2)
    adapter.start()
    yield adapter
    adapter.close()


def call(tool: str, cwd: Path | str = "/", **arguments: Any) -> ToolCall:
    return ToolCall(tool=tool, arguments=arguments, cwd=str(cwd))


def test_reference_manifest_and_roundtrip(reference: Any, tmp_path: Path) -> None:
    written = reference.call(call("write", tmp_path, path="a.txt", content="é\n"))
    assert not written.is_error and (tmp_path / "a.txt").read_bytes() == "é\n".encode()
    shown = reference.call(call("read", tmp_path, path="a.txt"))
    assert shown.text == "     1\u2192é"


def test_concurrent_calls_are_matched_by_id(reference: Any, tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i}.txt").write_text(f"content {i}\n")
    pending = [reference.submit(call("read", tmp_path, path=f"f{i}.txt")) for i in range(30)]
    texts = [p.result(30).text for p in pending]
    assert texts == [f"     1\u2192content {i}" for i in range(30)]


def test_unknown_tool_is_a_protocol_error(reference: Any, tmp_path: Path) -> None:
    with pytest.raises(ProtocolError) as info:
        reference.call(call("frobnicate", tmp_path))
    assert info.value.code == -32602 and "frobnicate" in str(info.value)


def test_missing_cwd_is_an_error_result(reference: Any, tmp_path: Path) -> None:
    result = reference.call(call("read", tmp_path / "gone", path="a.txt"))
    assert result.is_error and "does not exist" in result.text


def test_lone_surrogate_crosses_stdio(tmp_path: Path) -> None:
    adapter = StdioAdapter(REFERENCE_STDIO)
    adapter.start()
    try:
        result = adapter.call(call("write", tmp_path, path="s.txt", content="a\ud800b"))
        assert result.is_error and not (tmp_path / "s.txt").exists()
    finally:
        adapter.close()


def test_crash_fails_pending_call_and_next_call_restarts(fake: StdioAdapter) -> None:
    with pytest.raises(AdapterError) as info:
        fake.call(call("crash"))
    message = str(info.value)
    assert "fake_server.py" in message and "exited with status 3" in message
    assert "call crash" in message, "the child's last stderr lines are shown"
    assert fake.call(call("echo", x=1)).text == '{"x": 1}'
    assert fake.restarts == 1


def test_garbage_on_stdout_is_reported(fake: StdioAdapter) -> None:
    with pytest.raises(AdapterError, match=r"not JSON-RPC.*this is not json"):
        fake.call(call("garbage"))
    assert fake.call(call("echo")).text == "{}"


def test_hang_is_cut_at_the_deadline(fake: StdioAdapter) -> None:
    with pytest.raises(AdapterError, match="no answer to hang"):
        fake.call(call("hang"), timeout=0.5)


def test_a_test_may_shorten_a_deadline_never_lengthen_it() -> None:
    due = time.monotonic() + 100
    assert wait_within(100, due, 5) == (5, 5)
    for asked in (None, 100, 500):
        shown, wait = wait_within(100, due, asked)
        assert shown == 100 and 90 < wait <= 100, asked
    assert wait_within(100, time.monotonic() - 1, 5) == (100, 0.0), "past due: no wait at all"


def test_the_call_timeout_bounds_a_longer_allowance(tmp_path: Path) -> None:
    """A run with a short --agenttools-call-timeout (selfcheck's hanging broken copies) must not
    wait out a test's own longer allowance."""
    adapter = InProcessAdapter(
        "pytest_agenttools.implementations.reference:create", call_timeout=0.5
    )
    adapter.start()
    try:
        with pytest.raises(AdapterError, match=r"no result within 0.5 s"):
            adapter.call(call("bash", tmp_path, command="sleep 30"), timeout=60)
    finally:
        adapter.close()


def test_an_answer_to_the_deadline_cancel_is_not_an_answer(fake: StdioAdapter) -> None:
    """A call that only answers the kit's cancel (an endless read that honours aborts) fails as
    it does in process: its "aborted" error must not pass a test that wants an error result."""
    with pytest.raises(AdapterError, match=r"no answer to slow.*only after the kit's cancel"):
        fake.call(call("slow"), timeout=0.3)
    assert fake.call(call("echo", x=2)).text == '{"x": 2}'
    assert fake.restarts == 1, "the child that overran its deadline is replaced"


def test_cancel_reaches_the_call(fake: StdioAdapter) -> None:
    pending = fake.submit(call("slow"))
    threading.Timer(0.2, pending.cancel).start()
    result = pending.result(10)
    assert result.is_error and result.text == "Command aborted"


def test_contract_violation_names_the_adapter(fake: StdioAdapter) -> None:
    with pytest.raises(
        AdapterError, match=r"stdio adapter.*invalid result.*content must be a list"
    ):
        fake.call(call("badresult"))


def test_missing_initialize_answer() -> None:
    adapter = StdioAdapter(FAKE + " --no-init", call_timeout=1)
    with pytest.raises(AdapterError, match="no answer to initialize"):
        adapter.start()
    adapter.close()


def test_command_not_found() -> None:
    with pytest.raises(AdapterError, match="cannot start the command"):
        StdioAdapter("/nonexistent/server --flag").start()


def test_inprocess_factory_errors() -> None:
    for spec, needle in [
        ("nocolon", "package.module:factory"),
        ("no_such_mod_q:create", "cannot import"),
        ("pytest_agenttools.implementations.reference:nope", "no attribute"),
    ]:
        with pytest.raises(AdapterError, match=needle):
            InProcessAdapter(spec).start()
