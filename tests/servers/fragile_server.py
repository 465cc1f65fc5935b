"""The reference's tools behind a stdio loop written the naive way: the robustness protocol
clauses must fail it (a non-UTF-8 byte, deep nesting or an unhashable id ends the process; an
invalid id is echoed; a notification is answered)."""

import json
import sys
import threading

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

tools = ReferenceTools()
cancels: dict = {}
lock = threading.Lock()


def send(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        sys.stdout.flush()


def run(ident: object, params: dict) -> None:
    result = tools.call(
        params["tool"], params.get("arguments", {}), params["cwd"], None, cancels[ident]
    )
    send({"id": ident, "result": result})


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        ident, method = message.get("id"), message.get("method")
        params = message.get("params") or {}
        if method == "$/cancelRequest":
            event = cancels.get(params.get("id"))
            if event:
                event.set()
        elif method == "initialize":
            send({"id": ident, "result": tools.initialize(params)})
        elif method == "configure":
            send({"id": ident, "result": tools.configure(params["settings"])})
        elif method == "call":
            cancels[ident] = threading.Event()
            threading.Thread(target=run, args=(ident, params), daemon=True).start()
        elif method == "shutdown":
            tools.shutdown()
            send({"id": ident, "result": None})
            return
        else:
            send({"id": ident, "error": {"code": -32601, "message": f"unknown method {method}"}})


if __name__ == "__main__":
    main()
