"""``agenttools call --session``: one implementation started once, a call a line from stdin, a
JSON answer a line on stdout, in order; a bad line is answered with an error and the session
goes on; EOF stops everything the session started (checked in the process table).

Each adapter kind of ``connect/kinds.py`` is driven the same way: in process (the reference),
over stdio (``--cmd "agenttools serve"``) and over MCP (``--mcp`` with a mapping).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from pytest_agenttools.connect.kinds import KINDS
from tests.support import REPO

EXE = Path(sys.executable).parent / "agenttools"
MAPPING = REPO / "examples" / "mcp-reference" / "mapping.toml"

#: the options that choose each kind, by its name in KINDS
KIND_OPTIONS: dict[str, list[str]] = {
    "inprocess": [],
    "stdio": ["--cmd", f"{EXE} serve"],
    "mcp": ["--mcp", f"{EXE} serve --mcp --root {{cwd}}", "--mcp-mapping", str(MAPPING)],
}


def test_every_kind_is_covered() -> None:
    assert set(KIND_OPTIONS) == {kind.name for kind in KINDS}


def lines(*calls: object) -> bytes:
    return b"".join((c if isinstance(c, str) else json.dumps(c)).encode() + b"\n" for c in calls)


@pytest.mark.parametrize("kind", sorted(KIND_OPTIONS))
def test_a_session_answers_each_line_in_order_and_leaves_nothing_behind(
    kind: str, tmp_path: Path
) -> None:
    if kind == "mcp" and importlib.util.find_spec("mcp") is None:
        pytest.skip("the mcp SDK is not installed (pip install 'pytest-agenttools[mcp]')")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "sub").mkdir()
    proc = subprocess.Popen(
        [str(EXE), "call", "--session", "--cwd", str(ws), "--timeout", "60",
         *KIND_OPTIONS[kind]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    first = lines(
        {"tool": "write", "arguments": {"path": "a.txt", "content": "one\ntwo\n"}},
        "this is not JSON",
        "",  # blank: skipped, not answered
        ["read"],
        {"tool": "read", "arguments": {"path": "a.txt"}, "colour": "red"},
        {"tool": "read", "arguments": {"path": "a.txt", "offset": 2}},
        {"tool": "bash", "arguments": {"command": "pwd"}, "cwd": "sub"},
        {"tool": "bash", "arguments": {"command": "exec sleep 300", "run_in_background": True}},
    )
    proc.stdin.write(first)
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(7)]
    # everything the session started is alive now: the server, the background job (in ws)
    started = psutil.Process(proc.pid).children(recursive=True)
    assert started or kind == "inprocess"
    assert in_workspace(ws), "the background job is not running"
    assert [a["line"] for a in answers] == [1, 2, 4, 5, 6, 7, 8]
    assert answers[0]["result"]["isError"] is False
    assert answers[1]["error"].startswith("line 2: not JSON")
    assert "must be a JSON object" in answers[2]["error"]
    assert "unknown key(s) ['colour']" in answers[3]["error"]
    assert answers[4]["observation"]["lines"] == ["two"]  # the write of line 1 is still there
    assert answers[5]["observation"]["output"].strip() == str(ws / "sub")
    assert answers[6]["observation"]["background"] is True
    _, err = proc.communicate(timeout=120)  # EOF: the session ends
    assert proc.returncode == 1, err.decode()  # some lines were bad
    assert b"is up; send one call a line" in err
    _, alive = psutil.wait_procs(started, timeout=30)
    assert not alive, f"left running after EOF: {[(p.pid, p.name()) for p in alive]}"
    assert not in_workspace(ws, wait=0), "the background job outlived the session"


def in_workspace(ws: Path, wait: float = 30) -> list[int]:
    """The processes working in ``ws`` (the background job), waiting up to ``wait`` s for one."""
    deadline = time.monotonic() + wait
    while True:
        found = [
            p.info["pid"] for p in psutil.process_iter(["pid", "cwd"]) if p.info["cwd"] == str(ws)
        ]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)
