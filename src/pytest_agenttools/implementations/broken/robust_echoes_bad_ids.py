"""Echoes an id that JSON-RPC does not allow (an array, an object, a fraction, a boolean) in
its error answer instead of answering with id null, so a client matching answers by id can
take it for one of its own requests."""

from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import INVALID_REQUEST, Server, valid_id

__all__ = ["create"]


class EchoesBadIds(Server):
    def handle(self, message: Any) -> bool:
        if isinstance(message, dict) and "id" in message and not valid_id(message["id"]):
            error = {"code": INVALID_REQUEST, "message": "bad id"}
            self.send({"id": message["id"], "error": error})
            return True
        return super().handle(message)


BROKEN = Broken(
    caught_by={"ROBUST-ID-01"},
    suite_modules=["test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(EchoesBadIds)
