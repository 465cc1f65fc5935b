"""The reference, but a tool library that talks on stdout: it prints when it is imported,
made, called and shut down, through ``print`` and straight to fd 1.

``agenttools call`` and ``agenttools serve`` must keep their stdout for their own output (one
JSON document; the JSON-RPC wire), so every one of these lines must land on stderr
(``tests/cli/test_private_stdout.py``).
"""

from __future__ import annotations

import os
from typing import Any

from pytest_agenttools.implementations.reference import ReferenceTools

print("printing_impl: imported")


class PrintingTools(ReferenceTools):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        print("printing_impl: made")
        super().__init__(*args, **kwargs)

    def call(self, tool: str, arguments: Any, cwd: str, *args: Any, **kwargs: Any) -> Any:
        print(f"printing_impl: calling {tool}", flush=False)
        os.write(1, b"printing_impl: straight to fd 1\n")
        return super().call(tool, arguments, cwd, *args, **kwargs)

    def shutdown(self) -> None:
        print("printing_impl: shutting down")
        super().shutdown()


def create() -> PrintingTools:
    return PrintingTools()
