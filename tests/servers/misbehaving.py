"""A stdio server that misbehaves in one chosen way, for the harness's robustness matrix.

Usage: ``misbehaving.py MODE [PIDFILE]``. It answers ``initialize`` (unless the mode is about
initialize) and misbehaves on the first ``call``. Every process it starts besides itself is
appended to PIDFILE, so a test can prove none of them survived.

Modes:
  crash               exits with status 3 right after a last stderr line
  hang                never answers a call and ignores cancels
  garbage             writes a line that is not JSON
  stray-id            answers with an id nobody asked for
  nested-json         answers with JSON nested 100,000 deep
  bad-error-code      answers with an error whose code is a string
  stderr-flood        writes one 100 MB stderr line, then exits with status 4
  exit-initialize     exits with status 5 while answering initialize
  grandchild-stdout   starts a grandchild that holds its stdout, then exits with status 6
  orphans             starts grandchildren (one in a new session), then exits with status 7
  wedged-reader       stops reading stdin after initialize (a large request fills the pipe)
  huge-line           writes an answer line of 100 MB
  ignore-shutdown     answers calls, but neither answers nor obeys shutdown
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MANIFEST = {
    "name": "misbehaving",
    "version": "1",
    "tools": ["read"],
    "features": [],
    "output": {"line_numbers": "none"},
    "limits": {},
    "settings": [],
}
MODE = sys.argv[1] if len(sys.argv) > 1 else "crash"
PIDFILE = sys.argv[2] if len(sys.argv) > 2 else None


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def say(text: str) -> None:
    sys.stderr.write(f"misbehaving {MODE}: {text}\n")
    sys.stderr.flush()


def record(pid: int) -> None:
    if PIDFILE:
        with open(PIDFILE, "a", encoding="utf-8") as handle:
            handle.write(f"{pid}\n")


def spawn(*, new_session: bool = False, keep_stdout: bool = False) -> None:
    """A grandchild that sleeps for five minutes."""
    child = subprocess.Popen(
        ["sleep", "300"],
        stdin=subprocess.DEVNULL,
        stdout=None if keep_stdout else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=new_session,
    )
    record(child.pid)


def ok(ident: object, text: str = "ok") -> None:
    send(
        {
            "id": ident,
            "result": {"content": [{"type": "text", "text": text}], "isError": False},
        }
    )


def misbehave(ident: object) -> None:
    if MODE == "crash":
        say("about to crash")
        os._exit(3)
    elif MODE == "hang":
        say("hanging")
    elif MODE == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    elif MODE == "stray-id":
        send({"id": 987654, "result": {"content": [], "isError": False}})
    elif MODE == "nested-json":
        depth = 100_000
        head = json.dumps({"jsonrpc": "2.0", "id": ident})[:-1]
        sys.stdout.write(head + ', "result": ' + "[" * depth + "]" * depth + "}\n")
        sys.stdout.flush()
    elif MODE == "bad-error-code":
        send({"id": ident, "error": {"code": "oops", "message": "a string code"}})
    elif MODE == "stderr-flood":
        block = b"x" * (1 << 20)
        for _ in range(100):
            os.write(2, block)
        os.write(2, b"\n")
        say("flooded stderr")
        os._exit(4)
    elif MODE == "grandchild-stdout":
        spawn(keep_stdout=True)
        say("leaving a grandchild on stdout")
        os._exit(6)
    elif MODE == "orphans":
        spawn()
        spawn(new_session=True)
        say("leaving orphans")
        os._exit(7)
    elif MODE == "huge-line":
        text = "y" * (1 << 20)
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident})[:-1] + ', "result": "')
        for _ in range(100):
            sys.stdout.write(text)
        sys.stdout.write('"}\n')
        sys.stdout.flush()
    else:
        ok(ident)


def main() -> None:
    record(os.getpid())
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            if MODE == "exit-initialize":
                say("giving up during initialize")
                os._exit(5)
            send({"id": ident, "result": {"name": "misbehaving", "manifest": MANIFEST}})
            if MODE == "wedged-reader":
                say("no longer reading stdin")
                time.sleep(600)
        elif method == "shutdown":
            if MODE == "ignore-shutdown":
                continue
            send({"id": ident, "result": None})
            return
        elif method == "configure":
            send({"id": ident, "result": {"applied": {}}})
        elif method == "call":
            misbehave(ident)


if __name__ == "__main__":
    main()
