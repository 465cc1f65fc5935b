"""The suite's own stdio host: a server that dies while starting is quoted in its own words."""

from __future__ import annotations

import sys

import pytest

from pytest_agenttools.conformance.bash_strategies import StdioHost
from pytest_agenttools.harness.contract import Manifest


def test_a_server_that_dies_while_starting_is_quoted_from_its_stderr() -> None:
    argv = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('no module named nowhere'); sys.exit(3)",
    ]
    manifest = Manifest.from_wire({"name": "x", "version": "0", "tools": []})
    with pytest.raises(AssertionError) as caught:
        StdioHost(argv, manifest, timeout=30)
    message = str(caught.value)
    # it may die before initialize is sent or while it is answered: either is said, with stderr
    assert "exited while answering initialize" in message or "exited before it was sent" in message
    said = message.index("its stderr ended with:")
    assert message.index("no module named nowhere", said) > said
