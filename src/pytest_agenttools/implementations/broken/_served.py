"""Shared by the broken servers: implementations whose defect is in the stdio protocol layer
(how lines are read, which messages are answered, when the process ends), not in a tool.

Such a module's ``Broken`` sets ``served=True``, and the module ends with ``if __name__ ==
"__main__": serve_broken(...)``: ``agenttools selfcheck`` runs the suite against ``python -m
pytest_agenttools.implementations.broken.NAME`` over stdio, since an in-process run never
reaches the protocol layer. Its ``create()`` is the plain reference, for the in-process checks
every broken implementation gets.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO

from pytest_agenttools.implementations.reference.server import Server, TooLong, read_lines, serve
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

Lines = Callable[[BinaryIO, int], Iterator[bytes | TooLong]]


def serve_broken(server_class: type[Server] = Server, lines: Lines = read_lines) -> None:
    """Serve the reference on stdio with one part of the protocol layer swapped."""
    sys.exit(serve(exit_process=True, server_class=server_class, lines=lines))


def create() -> ReferenceTools:
    return ReferenceTools()
