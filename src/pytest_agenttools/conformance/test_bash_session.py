"""bash's session variables (feature ``bash.session_env``): the facts of the session each command
sees, under the names the manifest's ``dialect.session_env`` declares, and the switch that turns
them off. Each command runs ``env`` with an inherited environment that holds none of the names.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import parse_env, second_instance
from pytest_agenttools.harness.assertions import bash_obs, expect_ok
from pytest_agenttools.harness.contract import ToolCall
from pytest_agenttools.harness.markers import clause

SETTING = "bash.session_env"


def _inherited(ws: Workspace, names: dict[str, str]) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ws.root)}
    env["LANG"] = "C.UTF-8"
    for name in names.values():
        env.pop(name, None)
    return env


def _names(tools: ToolClient) -> dict[str, str]:
    names = tools.manifest.session_env
    assert names, "bash.session_env is declared but dialect.session_env names no variable"
    return names


def _seen(tools: ToolClient, ws: Workspace) -> dict[str, str]:
    result = expect_ok(tools.call("bash", command="env", _env=_inherited(ws, _names(tools))))
    return parse_env(bash_obs(result).output)


def _seen_in(adapter: Any, tools: ToolClient, ws: Workspace) -> dict[str, str]:
    call = ToolCall("bash", {"command": "env"}, str(ws.root), _inherited(ws, _names(tools)))
    result = adapter.call(call, 60)
    assert not result.is_error, f"env failed in the second instance: {result.text[:300]!r}"
    return parse_env(bash_obs(result).output)


@clause("BASH-SESSION-01")
def test_declared_variables_present(tools: ToolClient, ws: Workspace) -> None:
    names = _names(tools)
    for attempt in range(2):
        seen = _seen(tools, ws)
        missing = sorted(n for n in names.values() if n not in seen)
        assert not missing, f"command {attempt + 1}: the declared session variables {missing} "
        "are not in its environment"
        assert seen[names["session_id"]].strip(), f"{names['session_id']} (session_id) is empty"
        if "session_file" in names:
            path = seen[names["session_file"]]
            assert path == "" or os.path.isabs(path), (
                f"{names['session_file']} (session_file) is {path!r}: neither empty nor absolute"
            )


@clause("BASH-SESSION-02")
def test_one_session_id_per_instance(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, tools: ToolClient, ws: Workspace
) -> None:
    name = _names(tools)["session_id"]
    ids = [_seen(tools, ws).get(name) for _ in range(3)]
    assert ids[0], f"{name} is not in the command's environment"
    assert len(set(ids)) == 1, f"{name} changed from command to command: {ids}"
    with second_instance(pytestconfig, request.addfinalizer) as adapter:
        other = _seen_in(adapter, tools, ws).get(name)
    assert other, f"{name} is not in the second instance's command environment"
    assert other != ids[0], f"a second instance gave its command the same {name}: {other!r}"


@clause("BASH-SESSION-03")
def test_switched_off(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, tools: ToolClient, ws: Workspace
) -> None:
    names = _names(tools)
    assert SETTING in tools.manifest.settings, (
        f"bash.session_env is declared but manifest.settings does not list {SETTING!r}: the "
        "session variables cannot be turned off"
    )
    with second_instance(pytestconfig, request.addfinalizer) as adapter:
        applied = adapter.configure({SETTING: False})
        assert SETTING in applied, f"configure {{{SETTING!r}: false}} was not applied: {applied}"
        shown = sorted(n for n in names.values() if n in _seen_in(adapter, tools, ws))
        assert not shown, f"switched off, commands still see {shown}"
        adapter.configure({SETTING: True})
        back = _seen_in(adapter, tools, ws)
        assert names["session_id"] in back, "switched back on, the session id stays missing"
