#!/usr/bin/env python3
"""Smoke test for the pi agenttools/2 adapter (stdlib only).

Starts `node server.mjs`, sends initialize, configure, a write, a read, a bash command, a
concurrent pair of calls, an unknown tool, a garbage line and shutdown, prints every answer and
checks its shape, the observation each result carries among them.
Exit status 0 when every check passed.

    cd peers/pi && npm install --ignore-scripts && python3 smoke.py
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


class Client:
    """A minimal agenttools/2 client: one reader thread collects answers by id."""

    def __init__(self, cmd: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.answers: dict[object, dict] = {}
        self.cond = threading.Condition()
        self.stray: queue.Queue[str] = queue.Queue()
        self.stderr_lines: list[str] = []
        self.next_id = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8")
            try:
                msg = json.loads(line)
            except ValueError:
                self.stray.put(line)
                continue
            with self.cond:
                self.answers.setdefault(msg.get("id"), msg)
                self.cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def send_raw(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def send(self, method: str, params: object = None, notify: bool = False) -> int | None:
        msg: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if notify:
            self.send_raw(json.dumps(msg))
            return None
        self.next_id += 1
        msg["id"] = self.next_id
        self.send_raw(json.dumps(msg))
        return self.next_id

    def wait(self, rid: object, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with self.cond:
            while rid not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer to request {rid!r} within {timeout}s")
                self.cond.wait(left)
            return self.answers.pop(rid)

    def request(self, method: str, params: object = None, timeout: float = 30.0) -> dict:
        return self.wait(self.send(method, params), timeout)

    def call(self, tool: str, arguments: dict, cwd: Path, timeout: float = 30.0) -> dict:
        return self.request(
            "call", {"tool": tool, "arguments": arguments, "cwd": str(cwd)}, timeout
        )


def show(label: str, answer: dict) -> None:
    text = json.dumps(answer, ensure_ascii=False)
    if len(text) > 400:
        text = text[:400] + "...(shortened)"
    print(f"{label}:\n  {text}")


failures: list[str] = []


def check(cond: bool, what: str) -> None:
    print(f"  [{'ok' if cond else 'FAIL'}] {what}")
    if not cond:
        failures.append(what)


def main() -> int:
    client = Client(["node", str(HERE / "server.mjs")], HERE)
    with tempfile.TemporaryDirectory(prefix="pi-smoke-") as tmp:
        ws = Path(tmp)

        ans = client.request("initialize", {"protocol": "agenttools/2"})
        show("initialize", ans)
        res = ans.get("result", {})
        check(res.get("protocol") == "agenttools/2", "protocol agenttools/2")
        check(
            res.get("manifest", {}).get("tools") == ["read", "write", "edit", "grep", "bash"],
            "manifest tools read, write, edit, grep, bash",
        )

        ans = client.request("configure", {"settings": {"read.max_lines": 3}})
        show("configure", ans)
        check(ans.get("result") == {"applied": {}}, "configure applies nothing")

        ans = client.call("write", {"path": "sub/dir/a.txt", "content": "one\ntwo\nthree\n"}, ws)
        show("write sub/dir/a.txt", ans)
        check(ans.get("result", {}).get("isError") is False, "write succeeds")
        check((ws / "sub/dir/a.txt").read_bytes() == b"one\ntwo\nthree\n", "bytes on disk as given")
        observed = ans.get("result", {}).get("details", {}).get("observation", {})
        check(
            observed == {"path": str(ws / "sub/dir/a.txt"), "bytes_written": 14},
            "write observation: the file pi wrote and the size pi reported",
        )

        ans = client.call("read", {"path": "sub/dir/a.txt", "offset": 2, "limit": 1}, ws)
        show("read offset=2 limit=1", ans)
        text = ans.get("result", {}).get("content", [{}])[0].get("text", "")
        check(text.startswith("two\n"), "read returns line 2 without line numbers")
        observed = ans.get("result", {}).get("details", {}).get("observation", {})
        check(
            (observed.get("start_line"), observed.get("lines"), observed.get("next_offset"))
            == (2, ["two"], 3),
            "read observation: line 2 shown, continue from 3",
        )

        ans = client.call("bash", {"command": "echo out; echo err >&2; exit 4"}, ws)
        show("bash exit 4", ans)
        result = ans.get("result", {})
        observed = result.get("details", {}).get("observation", {})
        check(result.get("isError") is True, "a failed command is an error result")
        check(
            (observed.get("exit_code"), observed.get("output")) == (4, "out\nerr\n"),
            "bash observation: exit code 4 and the output as shown",
        )

        ans = client.call("read", {"path": "missing.txt"}, ws)
        show("read missing.txt", ans)
        check(ans.get("result", {}).get("isError") is True, "missing file is an error result")

        # Concurrency: a read of a FIFO with no writer blocks inside pi; a second call sent after
        # it must still answer first. Then the FIFO read is cancelled.
        fifo = ws / "fifo"
        os.mkfifo(fifo)
        slow = client.send("call", {"tool": "read", "arguments": {"path": "fifo"}, "cwd": str(ws)})
        fast = client.send(
            "call", {"tool": "read", "arguments": {"path": "sub/dir/a.txt"}, "cwd": str(ws)}
        )
        ans_fast = client.wait(fast)
        show(f"concurrent: fast read (id {fast})", ans_fast)
        check(slow not in client.answers, "blocked FIFO read did not hold up the second call")
        check(ans_fast.get("result", {}).get("isError") is False, "second call answered")
        client.send("$/cancelRequest", {"id": slow}, notify=True)
        ans_slow = client.wait(slow, timeout=10)
        show(f"concurrent: cancelled FIFO read (id {slow})", ans_slow)
        check(
            ans_slow.get("result", {}).get("isError") is True, "cancelled call answers with isError"
        )
        # pi leaves its open(2) of the FIFO blocked after the cancel; the server must still exit
        # promptly at shutdown (checked below).

        # Two writes in flight at once, both answered.
        a = client.send(
            "call",
            {"tool": "write", "arguments": {"path": "p.txt", "content": "P"}, "cwd": str(ws)},
        )
        b = client.send(
            "call",
            {"tool": "write", "arguments": {"path": "q.txt", "content": "Q"}, "cwd": str(ws)},
        )
        ans_a, ans_b = client.wait(a), client.wait(b)
        show("concurrent write p.txt", ans_a)
        show("concurrent write q.txt", ans_b)
        check(
            (ws / "p.txt").read_text() == "P" and (ws / "q.txt").read_text() == "Q",
            "both writes landed",
        )

        ans = client.call("frobnicate", {}, ws)
        show("unknown tool", ans)
        check(ans.get("error", {}).get("code") == -32602, "unknown tool -> -32602")
        check(
            ans.get("error", {}).get("message") == "unknown tool 'frobnicate'",
            "unknown tool message",
        )

        ans = client.request("no_such_method")
        show("unknown method", ans)
        check(ans.get("error", {}).get("code") == -32601, "unknown method -> -32601")

        client.send_raw("this is not json")
        ans = client.wait(None)
        show("garbage line", ans)
        check(ans.get("error", {}).get("code") == -32700, "garbage line -> -32700 with id null")

        started = time.monotonic()
        ans = client.request("shutdown")
        show("shutdown", ans)
        check("result" in ans and ans["result"] is None, "shutdown answers null")
        try:
            rc = client.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            client.proc.kill()
            rc = None
        check(rc == 0, f"process exited with 0 (got {rc})")
        check(time.monotonic() - started < 5, "exited within 5 s of shutdown")

    stray = []
    while not client.stray.empty():
        stray.append(client.stray.get())
    check(not stray, f"no non-JSON lines on stdout {stray[:3]}")
    print("stderr of the server:")
    for line in client.stderr_lines[-10:]:
        print("  " + line)
    print("SMOKE OK" if not failures else f"SMOKE FAILED: {failures}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
