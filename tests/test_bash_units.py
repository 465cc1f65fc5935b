"""Unit tests of the bash building blocks: output view, env sanitising, analysis, rm shim."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.reference_impl import command_analysis, env_sanitize, rm_shim
from pytest_agenttools.reference_impl.bash import parse_timeout
from pytest_agenttools.reference_impl.output_capture import NO_OUTPUT, build_view, clean_text
from pytest_agenttools.reference_impl.results import ToolError
from pytest_agenttools.reference_impl.toolbox import ReferenceTools


def view_of(tmp_path: Path, data: bytes, max_bytes: int, max_lines: int) -> Any:
    path = tmp_path / "out.log"
    path.write_bytes(data)
    return build_view(str(path), 0, len(data), max_bytes, max_lines)


def test_view_small_output_whole(tmp_path: Path) -> None:
    view = view_of(tmp_path, b"a\nb\n", 100, 10)
    assert view.text == "a\nb\n" and not view.truncated


def test_view_empty(tmp_path: Path) -> None:
    assert view_of(tmp_path, b"", 100, 10).text == NO_OUTPUT


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=3000), max_bytes=st.integers(8, 500), max_lines=st.integers(2, 30))
def test_view_bounds(tmp_path_factory: Any, data: bytes, max_bytes: int, max_lines: int) -> None:
    view = view_of(tmp_path_factory.mktemp("v"), data, max_bytes, max_lines)
    if not view.truncated:
        assert view.text == (clean_text(data) or NO_OUTPUT)
        return
    head, _, tail = view.text.partition("[... ")
    tail = tail.partition(" omitted ...]\n")[2]
    assert len(head.encode()) + len(tail.encode()) <= max_bytes * 3  # U+FFFD may widen bytes
    assert view.omitted_bytes > 0


def test_view_split_code_point(tmp_path: Path) -> None:
    data = ("中" * 400).encode()
    view = view_of(tmp_path, data, 100, 10)
    assert "\ufffd" not in view.text, "a cut inside a code point must not show U+FFFD"


def test_clean_text() -> None:
    assert clean_text(b"a\x1b[0m\tb\r\n\x00\x9b\xc2\x85c") == "a[0m\tb\r\n\ufffdc"


def test_parse_timeout() -> None:
    assert parse_timeout(1, 300) == 1.0
    for bad in (0, -1, float("nan"), float("inf"), "5", True, None, 301):
        with pytest.raises(ToolError):
            parse_timeout(bad, 300)


@pytest.mark.parametrize(
    ("explicit", "env", "mode"),
    [
        ("strict", {"AGENTTOOLS_BASH_ENV_SANITIZE": "off", "CI": "1"}, "strict"),
        (None, {"AGENTTOOLS_BASH_ENV_SANITIZE": "off", "CI": "1"}, "off"),
        (None, {"CI": "yes"}, "scrub"),
        (None, {"GITHUB_ACTIONS": "FALSE"}, "off"),
        (None, {}, "off"),
    ],
)
def test_mode_choice(explicit: str | None, env: dict[str, str], mode: str) -> None:
    assert env_sanitize.choose_mode(explicit, env) == mode


def test_invalid_mode() -> None:
    with pytest.raises(env_sanitize.InvalidMode):
        env_sanitize.choose_mode("loose", {})


def test_sanitize_reports_names_sorted() -> None:
    result = env_sanitize.sanitize(
        {"Z_TOKEN": "1", "A_SECRET": "2", "PATH": "/bin", "AGENTTOOLS_X": "3"}, "strict"
    )
    assert result.removed == ("AGENTTOOLS_X", "A_SECRET", "Z_TOKEN")
    assert result.env == {"PATH": "/bin"}


def test_prepend_path() -> None:
    env = {"PATH": "/usr/bin:/shim:/bin"}
    env_sanitize.prepend_path(env, ["/shim", "relative", "/shim"])
    assert env["PATH"] == "/shim:/usr/bin:/bin"


def test_explicit_mode_service(tmp_path: Path) -> None:
    tools = ReferenceTools()
    tools.services["bash.env_sanitize"] = "strict"
    try:
        env = {"PATH": os.environ["PATH"], "MY_TOKEN": "x", "AGENTTOOLS_BASH_ENV_SANITIZE": "off"}
        result = tools.call("bash", {"command": "env"}, str(tmp_path), env)
        assert "MY_TOKEN" not in result["content"][0]["text"]
        assert result["details"]["envSanitized"] == ["MY_TOKEN"]
    finally:
        tools.shutdown()


def test_rm_shim_refuses_when_it_cannot_be_made(tmp_path: Path) -> None:
    tools = ReferenceTools()
    try:
        assert not tools.call("bash", {"command": "true"}, str(tmp_path))["isError"]
        paths = tools.services[rm_shim.SERVICE]
        shutil.rmtree(paths["shims"])
        Path(paths["shims"]).write_text("not a directory")  # the shim cannot be recreated
        result = tools.call("bash", {"command": "touch ran"}, str(tmp_path))
        assert result["isError"] and "rm shim" in result["content"][0]["text"]
        assert not (tmp_path / "ran").exists()
        os.unlink(paths["shims"])
        assert not tools.call("bash", {"command": "true"}, str(tmp_path))["isError"]
    finally:
        tools.shutdown()


def test_rm_shim_recreated(tmp_path: Path) -> None:
    tools = ReferenceTools()
    try:
        tools.call("bash", {"command": "true"}, str(tmp_path))
        shim = os.path.join(tools.services[rm_shim.SERVICE]["shims"], "rm")
        os.unlink(shim)
        (tmp_path / "f").write_text("x")
        assert not tools.call("bash", {"command": "rm f"}, str(tmp_path))["isError"]
        assert os.access(shim, os.X_OK) and not (tmp_path / "f").exists()
    finally:
        tools.shutdown()


@pytest.mark.parametrize(
    ("command", "parts"),
    [("a && b || c; d | e & f", 6), ("a", 1), ("a\nb", 2), ("a # comment", 1)],
)
def test_split(command: str, parts: int) -> None:
    assert len(command_analysis.analyze(command)["parts"]) == parts


def test_empty_command_fails_closed() -> None:
    assert command_analysis.analyze("")["class"] == "require-human"


def test_keepalive_of_parse_error() -> None:
    assert command_analysis.keepalive_of("nohup x & '") is False
