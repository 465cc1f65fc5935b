"""``dialect.session_env`` and the ``bash.session_env`` feature: what a manifest may declare."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_agenttools.harness.contract import ContractViolation, Manifest


def manifest(**extra: Any) -> Manifest:
    return Manifest.from_wire({"name": "m", "version": "1", "tools": ["bash"], **extra})


def test_names_are_read() -> None:
    found = manifest(
        features=["bash.session_env"],
        settings=["bash.session_env"],
        dialect={"session_env": {"session_id": "PI_SESSION_ID", "model": "PI_MODEL"}},
    )
    assert found.session_env == {"session_id": "PI_SESSION_ID", "model": "PI_MODEL"}
    assert "bash.session_env" in found.settings
    assert manifest().session_env == {}


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"session": "X_ID"}, "session_id"),
        ({"session_id": "AGENTTOOLS_SESSION_ID"}, "AGENTTOOLS_"),
        ({"session_id": "agenttools_id"}, "AGENTTOOLS_"),
        ({"session_id": "1BAD"}, "environment variable names"),
        ({"session_id": "A=B"}, "environment variable names"),
        ({"session_id": ""}, "environment variable names"),
        ({"session_id": 3}, "environment variable names"),
        ("PI_SESSION_ID", "environment variable names"),
    ],
)
def test_bad_names_are_refused(table: Any, said: str) -> None:
    with pytest.raises(ContractViolation, match=r"dialect\.session_env") as caught:
        manifest(dialect={"session_env": table})
    assert said in str(caught.value)


def test_the_feature_needs_the_session_id() -> None:
    with pytest.raises(ContractViolation, match="session id's variable"):
        manifest(
            features=["bash.session_env"],
            dialect={"session_env": {"model": "PI_MODEL"}},
        )
