"""``agenttools init``: each skeleton runs as its README says and passes its first run; the
stdio skeletons speak the protocol correctly; a declared stub fails a call cleanly.

Python always; Node.js when ``node`` is on PATH, Go when ``go`` is (skipped otherwise).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.cli.scaffold import SKELETONS, ScaffoldError, write_skeleton
from pytest_agenttools.harness.contract import PROTOCOL, Manifest
from pytest_agenttools.spec.clauses import load
from tests.support import run_agenttools

LANGUAGES = ("python", "node", "go")
TOOLS = ("read", "write", "edit", "grep", "glob", "bash", "task_output")
BIN = os.path.dirname(sys.executable)


def need(language: str) -> None:
    program = {"node": "node", "go": "go"}.get(language)
    if program and not shutil.which(program):
        pytest.skip(f"{program} is not on PATH: the {language} skeleton cannot run here")


def shell(command: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run one of the commands a skeleton's README gives, with this kit's ``agenttools`` first
    on PATH (as in an activated venv)."""
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    if command.startswith("go "):
        env.setdefault("GOTOOLCHAIN", "local")  # never download a toolchain
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def make(language: str, directory: Path) -> Path:
    need(language)
    proc = run_agenttools("init", "--lang", language, str(directory), cwd=directory.parent)
    assert proc.returncode == 0, proc.stderr
    skeleton = SKELETONS[language]
    for target, _ in skeleton.files:
        assert (directory / target).is_file(), target
        assert str(directory / target) in proc.stdout
    for command in skeleton.commands(directory.name):
        assert command in proc.stdout, "init must print how to run the skeleton"
        assert command in (directory / "README.md").read_text(), "the README must say it too"
    return directory


def build(language: str, directory: Path) -> list[str]:
    """Build the skeleton as its README says; the command that runs it."""
    *steps, run = SKELETONS[language].commands(directory.name)
    for step in steps:
        built = shell(step, directory)
        assert built.returncode == 0, built.stdout + built.stderr
    return [run]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.kit_long(71)
def test_skeleton_passes_its_first_run(tmp_path: Path, language: str) -> None:
    directory = make(language, tmp_path / f"{language}-tools")
    (run,) = build(language, directory)
    proc = shell(f"{run} --report-json first.json", directory)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((directory / "first.json").read_text())
    assert report["implementation"]["name"] == f"{language}-tools"
    assert report["implementation"]["manifest"]["tools"] == []
    summary = report["summary"]
    assert summary["failed"] == summary["error"] == 0
    assert summary["skipped"] > 400, "every tool's test runs its gate and is not run"
    every = {c.id for c in load().active() if c.for_every_implementation}
    ran = {c for c, verdict in report["clauses"].items() if verdict != "skipped"}
    assert ran <= every, "only the clauses for every implementation (robust) run"
    assert set(report["levels"]) <= {"robust"}
    assert set(report["undeclared_tools"]) == {"read", "write", "edit", "grep", "glob", "bash"}
    for tool in report["undeclared_tools"]:
        assert re.search(rf"not run: tool {tool} is not declared \(\d+ clauses\)", proc.stdout)


def test_init_never_overwrites(tmp_path: Path) -> None:
    write_skeleton("python", tmp_path / "a")
    before = (tmp_path / "a" / "adapter.py").read_text()
    (tmp_path / "a" / "adapter.py").write_text("# mine\n")
    proc = run_agenttools("init", "--lang", "python", "a", cwd=tmp_path)
    assert proc.returncode == 2 and "adapter.py" in proc.stderr and "overwrite" in proc.stderr
    assert (tmp_path / "a" / "adapter.py").read_text() == "# mine\n" != before
    with pytest.raises(ScaffoldError, match="unknown language 'rust'"):
        write_skeleton("rust", tmp_path / "b")
    bad = run_agenttools("init", "--lang", "node", "c", "--name", "Not OK", cwd=tmp_path)
    assert bad.returncode == 2 and "lower-case" in bad.stderr


def declare_everything(language: str, directory: Path) -> None:
    """Declare every canonical tool, with the stubs as they come."""
    names = ", ".join(json.dumps(t) for t in TOOLS)
    file, before, after = {
        "python": ("adapter.py", '"tools": [],', f'"tools": [{names}],'),
        "node": ("server.mjs", "tools: [],", f"tools: [{names}],"),
        "go": (
            "main.go",
            "var declaredTools = []string{}",
            f"var declaredTools = []string{{{names}}}",
        ),
    }[language]
    path = directory / file
    text = path.read_text()
    assert before in text
    path.write_text(text.replace(before, after))


@pytest.mark.parametrize("language", LANGUAGES)
def test_declared_stubs_answer_with_clean_errors(tmp_path: Path, language: str) -> None:
    directory = make(language, tmp_path / "stubs")
    declare_everything(language, directory)
    (run,) = build(language, directory)
    target = run.split(" ", 2)[2]  # "--impl ..." or "--cmd ..."
    for tool in TOOLS:
        proc = shell(f"agenttools call {tool} '{{}}' {target}", directory)
        assert proc.returncode == 0, f"{tool}: {proc.stdout}{proc.stderr}"
        out = json.loads(proc.stdout)
        assert out["result"]["isError"] is True
        text = out["result"]["content"][0]["text"]
        assert text == f"{tool} is not implemented yet in stubs; no action was taken."
        if tool in ("bash", "task_output"):
            assert out["observation"]["exit_code"] is None and out["observation"]["output"] == ""
        else:
            assert out["observation"] is None
    odd = shell(f"agenttools call read '[1, 2]' {target}", directory)
    assert odd.returncode == 0 and json.loads(odd.stdout)["result"]["isError"] is True


def test_a_result_without_observation_is_shown_as_a_violation(tmp_path: Path) -> None:
    directory = make("python", tmp_path / "py")
    declare_everything("python", directory)
    path = directory / "adapter.py"
    text = path.read_text()
    stub = '    return not_implemented("read")'
    assert stub in text
    path.write_text(text.replace(stub, '    return result("one line")', 1))
    proc = shell('agenttools call read \'{"path": "a"}\' --impl adapter.py:create', directory)
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["result"]["content"][0]["text"] == "one line"
    assert "carries no details.observation" in out["violation"]


class Server:
    """A skeleton's stdio server, spoken to line by line."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 10) -> tuple[dict[str, Any], bytes]:
        raw = self.lines.get(timeout=timeout)
        message = json.loads(raw)
        assert message["jsonrpc"] == "2.0"
        return message, raw

    def request(self, ident: Any, method: str, params: Any = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        answer, _ = self.answer()
        assert answer["id"] == ident
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def server_argv(language: str, directory: Path) -> list[str]:
    """The server command of the README's ``agenttools run --cmd "..."`` (python: the README's
    way to serve the in-process adapter over stdio)."""
    (run,) = build(language, directory)
    words = shlex.split(run)
    if language == "python":
        served = 'agenttools run --cmd "agenttools serve --impl adapter.py:create"'
        assert served in (directory / "README.md").read_text()
        return [os.path.join(BIN, "agenttools"), "serve", "--impl", "adapter.py:create"]
    return shlex.split(words[words.index("--cmd") + 1])


@pytest.mark.parametrize("language", LANGUAGES)
def test_stdio_skeleton_speaks_the_protocol(tmp_path: Path, language: str) -> None:
    directory = make(language, tmp_path / "proto")
    server = Server(server_argv(language, directory), directory)
    try:
        hello = server.request(1, "initialize", {"protocol": PROTOCOL})["result"]
        assert hello["protocol"] == PROTOCOL
        assert Manifest.from_wire(hello["manifest"]).tools == frozenset()
        for line, code in (
            (b"not json", -32700),
            (b"\xff\xfe{}", -32700),
            (b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":NaN}', -32700),
            (b"[1, 2]", -32600),
            (b'"a string"', -32600),
            (b'{"id": 4, "method": "initialize"}', -32600),
            (b'{"jsonrpc":"2.0","id":[1],"method":"initialize"}', -32600),
            (b'{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}', -32600),
            (b'{"jsonrpc":"2.0","id":1.5,"method":"initialize"}', -32600),
            (b'{"jsonrpc":"2.0","id":true,"method":"initialize"}', -32600),
            (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"initialize"}', -32600),
        ):
            server.send(line)
            answer, _ = server.answer()
            # without "jsonrpc" the id may be taken as found (JSON-RPC: null when unknown)
            ids = (None, 4) if line.startswith(b'{"id": 4') else (None,)
            assert answer["id"] in ids and answer["error"]["code"] == code, line[:60]
        server.send(b"")  # a blank line is ignored
        server.send(b'{"jsonrpc":"2.0","method":"something/else"}')  # a notification
        server.send(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[7]}}')
        server.send(b'{"jsonrpc":"2.0","method":"$/cancelRequest"}')
        for ident in ("", "x", 0, -3, 2**53 - 1):
            answer = server.request(ident, "configure", {"settings": {}})
            assert answer["result"] == {"applied": {}}
        server.send(
            b'{"jsonrpc":"2.0","id":9007199254740991,"method":"configure","params":{"settings":{}}}'
        )
        _, raw = server.answer()
        assert b'"id":9007199254740991' in raw.replace(b" ", b""), "the id must be echoed exactly"
        assert server.request(5, "frobnicate")["error"]["code"] == -32601
        assert server.request(6, "configure", {"settings": 3})["error"]["code"] == -32602
        ws = str(tmp_path)
        for params in (
            {"tool": "read", "arguments": {}, "cwd": ws},  # not declared
            [1, 2],
            {"arguments": {}, "cwd": ws},
            {"tool": 7, "arguments": {}, "cwd": ws},
            {"tool": "read", "arguments": {}},
            {"tool": "read", "arguments": {}, "cwd": ws, "env": {"A": 1}},
        ):
            answer = server.request(10, "call", params)
            # an undeclared tool is -32602; malformed params -32602 or -32600 (ROBUST-PARAMS-01)
            codes = (
                (-32602,)
                if params == {"tool": "read", "arguments": {}, "cwd": ws}
                else (
                    -32602,
                    -32600,
                )
            )
            assert answer["error"]["code"] in codes, params
            assert not re.search(r"Error:|panic|at \w+ \(", answer["error"]["message"])
        server.send(b"x" * (65 * 1024 * 1024))  # longer than the skeleton reads whole
        answer, _ = server.answer(timeout=60)
        assert answer["id"] is None and answer["error"]["code"] == -32600
        assert server.request(11, "configure", {"settings": {}})["result"] == {"applied": {}}
        assert server.request(12, "shutdown") == {"jsonrpc": "2.0", "id": 12, "result": None}
        assert server.proc.wait(timeout=5) == 0
    finally:
        server.close()


@pytest.mark.parametrize("language", ["node", "go"])
def test_stdio_skeleton_exits_when_stdin_closes(tmp_path: Path, language: str) -> None:
    directory = make(language, tmp_path / "eof")
    server = Server(server_argv(language, directory), directory)
    try:
        server.request(1, "initialize", {"protocol": PROTOCOL})
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        assert server.proc.wait(timeout=15) == 0
    finally:
        server.close()
