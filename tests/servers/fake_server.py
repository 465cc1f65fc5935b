"""A misbehaving stdio server for the adapter's own tests; the tool name picks the misbehaviour.

Tools: echo (answers its arguments), crash (exits 3), garbage (prints a non-JSON line),
hang (never answers, ignores cancels), slow (answers "aborted" once cancelled),
badresult (answers a result that breaks the contract). ``--no-init`` never answers initialize.
"""

import json
import os
import sys
import threading

MANIFEST = {
    "name": "fake",
    "version": "1",
    "tools": ["read"],
    "features": [],
    "output": {"line_numbers": "none"},
    "limits": {},
    "settings": [],
}
cancels: dict = {}
lock = threading.Lock()


def send(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        sys.stdout.flush()


def slow(ident: int, event: threading.Event) -> None:
    event.wait(30)
    send(
        {
            "id": ident,
            "result": {
                "content": [{"type": "text", "text": "Command aborted"}],
                "isError": True,
                "details": {},
            },
        }
    )


def main() -> None:
    no_init = "--no-init" in sys.argv
    print("fake server starting", file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            if not no_init:
                send(
                    {"id": ident, "result": {"name": "fake", "version": "1", "manifest": MANIFEST}}
                )
        elif method == "$/cancelRequest":
            event = cancels.get(params.get("id"))
            if event:
                event.set()
        elif method == "shutdown":
            send({"id": ident, "result": None})
            return
        elif method == "configure":
            send({"id": ident, "result": {"applied": {}}})
        elif method == "call":
            tool = params["tool"]
            print(f"call {tool}", file=sys.stderr, flush=True)
            if tool == "echo":
                text = json.dumps(params["arguments"], sort_keys=True)
                send(
                    {
                        "id": ident,
                        "result": {"content": [{"type": "text", "text": text}], "isError": False},
                    }
                )
            elif tool == "crash":
                os._exit(3)
            elif tool == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
            elif tool == "hang":
                pass
            elif tool == "slow":
                cancels[ident] = threading.Event()
                threading.Thread(target=slow, args=(ident, cancels[ident]), daemon=True).start()
            elif tool == "badresult":
                send({"id": ident, "result": {"content": "nope"}})
            else:
                send({"id": ident, "error": {"code": -32602, "message": f"unknown tool {tool!r}"}})


if __name__ == "__main__":
    main()
