"""Parses each line outside the loop's guard: the first line that is not JSON ends the process
with a traceback, and every call in flight is lost with it. (ROBUST-FUZZ-02 draws such lines
in two of its five kinds of line: 100 examples without one has odds of about 10^-22.)"""

from pytest_agenttools.implementations.broken._served import create, serve_broken
from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.server import Server, TooLong, parse

__all__ = ["create"]


class DiesOnBadLine(Server):
    def handle_line(self, line: bytes | TooLong) -> bool:
        if not isinstance(line, TooLong) and line.strip():
            parse(line)  # a ValueError leaves the read loop
        return super().handle_line(line)


BROKEN = Broken(
    caught_by={"ROBUST-LINE-01", "ROBUST-FUZZ-02"},
    suite_modules=["test_robust_protocol"],
    served=True,
    create=create,
)


if __name__ == "__main__":
    serve_broken(DiesOnBadLine)
