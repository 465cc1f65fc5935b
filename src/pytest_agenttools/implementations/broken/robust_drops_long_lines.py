"""Reads lines with a length cap and drops a line over the cap without a word: the client that
sent it waits for an answer that never comes (ROBUST-LINE-02 asks for one, an error for a line
too long, within 30 s). Lines under the cap are served as the reference serves them."""

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import Server, TooLong

__all__ = ["create"]


class DropsLongLines(Server):
    def handle_line(self, line: bytes | TooLong) -> bool:
        if isinstance(line, TooLong):
            return True  # dropped: no answer
        return super().handle_line(line)


BROKEN = Broken(
    caught_by={"ROBUST-LINE-02"},
    suite_modules=["test_robust_protocol"],
    served=True,
    # ROBUST-LINE-02 waits 30 s for the answer that never comes
    waits_s=30,
    create=create,
)


if __name__ == "__main__":
    serve_broken(DropsLongLines)
