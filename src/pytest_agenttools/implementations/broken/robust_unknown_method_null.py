"""Answers a method it does not have with a null result instead of error -32601, so a client
cannot tell an unsupported request from one that succeeded with nothing to say."""

from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import Server

__all__ = ["create"]
KNOWN = ("shutdown", "initialize", "configure", "call")


class UnknownMethodNull(Server):
    def dispatch(self, ident: Any, method: str, params: Any) -> bool:
        lookup = getattr(self.tools, "method", None)
        if method not in KNOWN and (lookup is None or lookup(method) is None):
            self.send({"id": ident, "result": None})
            return True
        return super().dispatch(ident, method, params)


BROKEN = Broken(
    caught_by={"ROBUST-METHOD-01"},
    suite_modules=["test_robust", "test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(UnknownMethodNull)
