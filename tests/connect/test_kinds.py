"""The table of adapter kinds: a new kind is its module and one row, and both a run and
``agenttools call`` reach it through that row alone."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.cli.commands import main
from pytest_agenttools.connect import inprocess, kinds
from pytest_agenttools.connect.base import Adapter, AdapterError, Target

pytest_plugins = ["pytester"]

#: what a toy kind is chosen by: a command line no other kind would take as its own
TOY = "toy-kind:reference"


def toy_kind(chosen: list[Mapping[str, Any]]) -> kinds.AdapterKind:
    """A kind of its own, as a new module would define it: the reference, reached when
    ``--cmd`` names the toy (it records the settings it was chosen with)."""

    def build(settings: Mapping[str, Any]) -> Adapter | None:
        if settings.get("cmd") != TOY:
            return None
        chosen.append(dict(settings))
        return inprocess.from_settings({**settings, "cmd": None})

    return kinds.AdapterKind("toy", f"--cmd {TOY}", build)


@pytest.fixture
def chosen(monkeypatch: pytest.MonkeyPatch) -> list[Mapping[str, Any]]:
    """The toy kind added to the table (first, as a new row may be), and what it was given."""
    seen: list[Mapping[str, Any]] = []
    monkeypatch.setattr(kinds, "KINDS", (toy_kind(seen), *kinds.KINDS))
    return seen


def test_agenttools_call_reaches_a_new_kind_through_the_table(
    chosen: list[Mapping[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    code = main(["call", "read", '{"path": "a.txt"}', "--cmd", TOY, "--cwd", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert [s["cmd"] for s in chosen] == [TOY]
    assert "hello" in json.dumps(out["result"])


def test_a_run_reaches_a_new_kind_through_the_table(
    chosen: list[Mapping[str, Any]], pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        """
        def test_read(agenttools_client):
            assert not agenttools_client.write(path="a.txt", content="x").is_error
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--agenttools-cmd={TOY}")
    result.assert_outcomes(passed=1)
    assert [s["cmd"] for s in chosen] == [TOY]
    assert set(chosen[0]) == set(Target().to_settings()), "a kind sees every setting"


def test_the_settings_choose_the_kind() -> None:
    assert isinstance(kinds.build_adapter(Target().to_settings()), inprocess.InProcessAdapter)
    assert type(kinds.build_adapter(Target(cmd="agenttools serve").to_settings())).__name__ == (
        "StdioAdapter"
    )


def test_a_table_without_a_fallback_says_which_options_choose_a_kind() -> None:
    table = (kinds.AdapterKind("never", "--never", lambda settings: None),)
    with pytest.raises(AdapterError, match="--never"):
        kinds.build_adapter(Target().to_settings(), table)


def test_a_kind_named_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'stdio'"):
        kinds.check_kinds((*kinds.KINDS, kinds.KINDS[1]))
