"""Shared by the kit's tests: the reference behind each adapter, and the CLI as a user runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.adapters.inprocess import InProcessAdapter
from pytest_agenttools.adapters.stdio import StdioAdapter

# The console script, found beside this interpreter: `python -m` from the repository root would
# import the source tree, which lacks the mapped subpackages, instead of the installed kit.
REFERENCE_STDIO = "agenttools serve"


@pytest.fixture(params=["in-process", "stdio"])
def reference(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The started reference, once in-process and once over stdio; closed afterwards."""
    if request.param == "stdio":
        adapter: Any = StdioAdapter(REFERENCE_STDIO, call_timeout=30)
    else:
        adapter = InProcessAdapter("pytest_agenttools.reference_impl:create")
    adapter.start()
    yield adapter
    adapter.close()


def run_agenttools(
    *args: str, cwd: Path, timeout: float = 1200, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``agenttools`` command in ``cwd`` and capture what it prints."""
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    return subprocess.run(
        [exe, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
