"""Takes a ``call``'s params on trust: a missing ``tool`` or a ``cwd`` or ``env`` of the wrong
type reaches the tools as it came, and the failure that follows is answered as an internal
error (-32603) instead of invalid params."""

import threading
from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import Server

__all__ = ["create"]


class TrustsCallParams(Server):
    def start_call(self, ident: Any, params: dict[str, Any]) -> None:
        self.submit(ident, self._call, ident, params, threading.Event())


BROKEN = Broken(
    caught_by={"ROBUST-PARAMS-01"},
    suite_modules=["test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(TrustsCallParams)
