"""Answers notifications: a ``$/cancelRequest`` or any other message without an id gets an
error answer (with id null) that no request asked for, which a client takes as the answer to
its next request."""

from typing import Any

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import INVALID_REQUEST, Server

__all__ = ["create"]


class AnswersNotifications(Server):
    def handle(self, message: Any) -> bool:
        going_on = super().handle(message)
        if isinstance(message, dict) and "id" not in message:
            self.error(None, INVALID_REQUEST, "notification handled")
        return going_on


BROKEN = Broken(
    caught_by={"ROBUST-ID-02"},
    suite_modules=["test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(AnswersNotifications)
