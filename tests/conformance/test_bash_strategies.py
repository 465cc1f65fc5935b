"""The suite's own stdio host: a server that dies while starting is quoted in its own words.
The survivor check (BASH-KEEP-01) never lists the implementation's own server as a survivor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_agenttools.conformance.bash_strategies import (
    StdioHost,
    expect_no_survivor,
    implementation_processes,
)
from pytest_agenttools.harness.contract import Manifest
from tests.support import suite_report


def test_a_server_that_dies_while_starting_is_quoted_from_its_stderr() -> None:
    argv = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('no module named nowhere'); sys.exit(3)",
    ]
    manifest = Manifest.from_wire({"name": "x", "version": "0", "tools": []})
    with pytest.raises(AssertionError) as caught:
        StdioHost(argv, manifest, timeout=30)
    message = str(caught.value)
    # it may die before initialize is sent or while it is answered: either is said, with stderr
    assert "exited while answering initialize" in message or "exited before it was sent" in message
    said = message.index("its stderr ended with:")
    assert message.index("no module named nowhere", said) > said


def test_the_server_working_in_the_workspace_is_no_survivor(tmp_path: Path) -> None:
    # a server that changed into the workspace to run a command, as some do
    server = subprocess.Popen(["sleep", "60"], cwd=tmp_path)
    left: subprocess.Popen[Any] | None = None
    try:
        tools: Any = SimpleNamespace(adapter=SimpleNamespace(pid=server.pid))
        spare = implementation_processes(tools)
        assert server.pid in spare
        expect_no_survivor(tmp_path, "a finished command", settle=0.0, spare=spare)
        # what the call started is still a survivor, and only it is named
        left = subprocess.Popen(["sleep", "61"], cwd=tmp_path)
        with pytest.raises(AssertionError) as caught:
            expect_no_survivor(tmp_path, "a finished command", settle=0.0, spare=spare)
        said = str(caught.value)
        assert f"{left.pid} " in said and f"{server.pid} " not in said
    finally:
        for process in (server, left):
            if process is not None:
                process.kill()
                process.wait()


def test_keep_01_passes_a_server_that_works_in_the_workspace(tmp_path: Path) -> None:
    impl = "tests.conformance.chdir_server:create"
    serve = f"{sys.executable} -m pytest_agenttools.cli serve --impl {impl}"
    data = suite_report(tmp_path, "BASH-KEEP-01", cmd=serve, extra=(), timeout=600)
    said = [
        line
        for t in data["tests"]
        for line in str(t.get("message") or "").splitlines()
        if line.startswith("E ")
    ]
    assert data["clauses"]["BASH-KEEP-01"] == "passed", said


def _cut(head: str, tail: str) -> Any:
    from pytest_agenttools.harness.observations import parse_observation

    raw = {"output": head + "[...]\n" + tail, "truncated": True}
    return parse_observation("bash", {**raw, "output_head": head, "output_tail": tail})


def test_a_cut_view_of_the_tail_alone_is_correct_and_one_of_the_head_alone_is_not() -> None:
    """BASH-OUT-06: the tail is required, a head optional on purpose (pi keeps the tail alone)."""
    from pytest_agenttools.conformance.bash_strategies import Caps, check_cut

    printed = "".join(f"{i}\n" for i in range(1, 101))
    caps = Caps(100, "bytes", 10)
    check_cut(_cut("", "96\n97\n98\n99\n100\n"), printed, caps, "tail alone")
    check_cut(_cut("1\n2\n", "99\n100\n"), printed, caps, "head and tail")
    with pytest.raises(AssertionError, match="must keep the end of the output"):
        check_cut(_cut("1\n2\n3\n", ""), printed, caps, "head alone")
