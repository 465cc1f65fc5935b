"""Echoes an id that JSON-RPC does not allow (an array, an object, a fraction, a boolean) in
its error answer instead of answering with id null, so a client matching answers by id can
take it for one of its own requests."""

from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.reference.server import INVALID_REQUEST, Server, valid_id

SERVED = True
SUITE_MODULES = ["test_robust_protocol"]
CAUGHT_BY = {"ROBUST-ID-01"}
__all__ = ["create"]


class EchoesBadIds(Server):
    def handle(self, message: Any) -> bool:
        if isinstance(message, dict) and "id" in message and not valid_id(message["id"]):
            error = {"code": INVALID_REQUEST, "message": "bad id"}
            self.send({"id": message["id"], "error": error})
            return True
        return super().handle(message)


if __name__ == "__main__":
    serve_broken(EchoesBadIds)
