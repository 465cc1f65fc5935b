"""The committed peers matrix (docs/peers) is whole and consistent: every shipped peer in it,
the JSON valid against its schema, the page drawn from the JSON, a behaviour behind every known
failure, a badge per shown level; and the script's comparison names what moved. Whether it
matches the peers' real runs is CI's check (`.ci/run`: `scripts/peers_matrix.py check`)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support import REPO

PEERS_DIR = REPO / "docs" / "peers"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "peers_matrix", REPO / "scripts" / "peers_matrix.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def matrix() -> dict[str, Any]:
    return json.loads((PEERS_DIR / "matrix.json").read_text(encoding="utf-8"))


def test_every_shipped_peer_is_in_the_table(script: ModuleType) -> None:
    shipped = {p.name for p in (REPO / "peers").iterdir() if p.is_dir()}
    assert {Path(p.directory).name for p in script.PEERS} == shipped


def test_the_matrix_holds_every_peer_and_is_valid(
    script: ModuleType, matrix: dict[str, Any]
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((PEERS_DIR / "matrix.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(matrix, schema)
    assert [p["key"] for p in matrix["peers"]] == [p.key for p in script.PEERS]
    for peer, row in zip(script.PEERS, matrix["peers"], strict=True):
        assert row["pinned"] == f"{peer.package}=={script.pinned_version(peer)}", row["key"]


def test_the_page_is_drawn_from_the_json(script: ModuleType, matrix: dict[str, Any]) -> None:
    page = (PEERS_DIR / "README.md").read_text(encoding="utf-8")
    assert page == script.page(matrix, script.spec_titles()), (
        "docs/peers/README.md does not match matrix.json: regenerate with "
        "`python scripts/peers_matrix.py render --reports DIR`"
    )


def test_every_known_failure_names_a_behaviour(matrix: dict[str, Any]) -> None:
    for peer in matrix["peers"]:
        for cid, cell in peer["clauses"].items():
            if cell["verdict"] == "expected":
                assert len(cell.get("reason", "")) > 20, f"{peer['key']} {cid}: no behaviour"
            assert cell["verdict"] != "failed", f"{peer['key']} {cid} fails unexpectedly"


def test_a_badge_for_every_shown_level(script: ModuleType, matrix: dict[str, Any]) -> None:
    for peer in matrix["peers"]:
        for name in script.shown_levels(peer):
            svg = (PEERS_DIR / "badges" / f"{peer['key']}-{name}.svg").read_text()
            must = peer["levels"][name]["MUST"]
            assert f"{must['passed']}/{sum(must.values())} MUST" in svg


def test_history_reports_diff_with_the_report_command(matrix: dict[str, Any]) -> None:
    """Each peer's history holds reports that `agenttools report --diff` reads."""
    from pytest_agenttools.report.diff import changes
    from pytest_agenttools.spec.clauses import load

    for peer in matrix["peers"]:
        kept = sorted((PEERS_DIR / "history" / peer["key"]).glob("*.json"))
        assert kept, f"no history for {peer['key']}"
        latest = json.loads(kept[-1].read_text(encoding="utf-8"))
        assert changes(load(), latest, latest) == []
        assert {c: v for c, v in latest["clauses"].items()}, peer["key"]


def test_check_names_what_moved(script: ModuleType) -> None:
    def view(verdict: str, version: str = "1") -> dict[str, Any]:
        return {"p": {"version": version, "levels": {}, "clauses": {"READ-LN-01": verdict}}}

    assert script.moved(view("passed"), view("passed")) == []
    assert script.moved(view("passed"), view("expected")) == ["p: READ-LN-01 passed -> expected"]
    assert script.moved(view("passed"), view("passed", "2")) == ["p: version 1 -> 2"]
    assert script.moved(view("passed"), {}) == ["p: gone"]
