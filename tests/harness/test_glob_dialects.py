"""``dialect.glob``: the declarable dialects, and pathlib's, which is refused with its reason."""

from __future__ import annotations

import pytest

from pytest_agenttools.harness.contract import GLOB_DIALECTS, Manifest
from pytest_agenttools.harness.violation import ContractViolation


def manifest(glob: str) -> Manifest:
    return Manifest.from_wire({"name": "t", "tools": ["glob"], "dialect": {"glob": glob}})


@pytest.mark.parametrize("glob", sorted(GLOB_DIALECTS))
def test_each_dialect_is_declarable(glob: str) -> None:
    assert manifest(glob).glob_dialect == glob


def test_pathlib_is_refused_with_its_reason_and_the_way_out() -> None:
    with pytest.raises(ContractViolation) as refused:
        manifest("pathlib")
    message = str(refused.value)
    assert "manifest.dialect.glob = 'pathlib'" in message
    assert "{a,b}" in message and "GLOB-PAT-03" in message and "Declare minimatch" in message
    assert "never adds what the tool lacks" in message
    for name in GLOB_DIALECTS:
        assert repr(name) in message


def test_an_unknown_dialect_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(ContractViolation, match=r"dialect\.glob must be one of .*'minimatch'"):
        manifest("fnmatch")
