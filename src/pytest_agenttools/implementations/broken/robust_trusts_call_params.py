"""Takes a ``call``'s params on trust: a missing ``tool`` or a ``cwd`` or ``env`` of the wrong
type reaches the tools as it came, and the failure that follows is answered as an internal
error (-32603) instead of invalid params."""

import threading
from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.reference.server import Server

SERVED = True
SUITE_MODULES = ["test_robust_protocol"]
CAUGHT_BY = {"ROBUST-PARAMS-01"}
__all__ = ["create"]


class TrustsCallParams(Server):
    def start_call(self, ident: Any, params: dict[str, Any]) -> None:
        self.submit(ident, self._call, ident, params, threading.Event())


if __name__ == "__main__":
    serve_broken(TrustsCallParams)
