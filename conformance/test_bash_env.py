"""bash environment: what the child process sees (checked by running ``env``), and ``rm``."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from pytest_agenttools.assertions import expect_error, expect_ok
from pytest_agenttools.markers import clause

from .bash_strategies import parse_env

MODE = "AGENTTOOLS_BASH_ENV_SANITIZE"
ALLOW = "AGENTTOOLS_BASH_ENV_ALLOW"
SCRUBBED = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OPENAI_API_KEY",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "FIGMA_API_TOKEN",
    "FIGMA_TOKEN",
    "E2E_AUTH_TOKEN",
)
KEPT_UNDER_SCRUB = ("GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN", "MY_SERVICE_TOKEN", "DATABASE_URL")


def base_env(ws: Any) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws.root),
        "LANG": "C.UTF-8",
    }


def child_env(tools: Any, env: dict[str, str]) -> tuple[dict[str, str], Any]:
    result = expect_ok(tools.call("bash", command="env", _env=env))
    return parse_env(result.text), result


def secret(name: str) -> str:
    return f"value-of-{name.lower()}-s3cr3t"


@clause("BASH-ENV-01")
@pytest.mark.parametrize("mode", ["off", "scrub", "strict"])
def test_layer_a_always(tools: Any, ws: Any, mode: str) -> None:
    env = {**base_env(ws), MODE: mode, "AGENTTOOLS_SESSION_ID": "s-1", "AGENTTOOLS_PORT": "4242"}
    seen, _ = child_env(tools, env)
    assert "AGENTTOOLS_SESSION_ID" not in seen and "AGENTTOOLS_PORT" not in seen, sorted(seen)
    assert seen.get(MODE) == mode


PRECEDENCE = [
    ({}, "off"),
    ({"CI": "true"}, "scrub"),
    ({"CI": "1"}, "scrub"),
    ({"GITHUB_ACTIONS": "true"}, "scrub"),
    ({"CI": "0"}, "off"),
    ({"CI": "false"}, "off"),
    ({"CI": "No"}, "off"),
    ({"CI": "off"}, "off"),
    ({"CI": ""}, "off"),
    ({"CI": "true", MODE: "off"}, "off"),
    ({"CI": "true", MODE: "STRICT"}, "strict"),
    ({MODE: "scrub"}, "scrub"),
    ({MODE: " strict "}, "strict"),
]


@clause("BASH-ENV-02")
@pytest.mark.parametrize(
    ("extra", "mode"), PRECEDENCE, ids=[f"{sorted(e.items())}->{m}" for e, m in PRECEDENCE]
)
def test_mode_precedence(tools: Any, ws: Any, extra: dict[str, str], mode: str) -> None:
    env = {**base_env(ws), **extra, "OPENAI_API_KEY": "k1", "MY_SERVICE_TOKEN": "k2"}
    seen, _ = child_env(tools, env)
    observed = (
        "off" if "OPENAI_API_KEY" in seen else "scrub" if "MY_SERVICE_TOKEN" in seen else "strict"
    )
    assert observed == mode, f"with {extra} the child saw mode {observed}, expected {mode}"


@clause("BASH-ENV-02")
def test_unknown_mode_is_an_error(tools: Any, ws: Any) -> None:
    env = {**base_env(ws), MODE: "paranoid"}
    expect_error(tools.call("bash", command="touch ran", _env=env), "paranoid")
    assert not ws.exists("ran")


@clause("BASH-ENV-03")
def test_scrub_list(tools: Any, ws: Any) -> None:
    names = [*SCRUBBED, *(f"INPUT_{n}" for n in SCRUBBED)]
    env = {**base_env(ws), MODE: "scrub", **{n: secret(n) for n in [*names, *KEPT_UNDER_SCRUB]}}
    seen, _ = child_env(tools, env)
    leaked = [n for n in names if n in seen]
    assert not leaked, f"scrub passed these through: {leaked}"
    lost = [n for n in KEPT_UNDER_SCRUB if seen.get(n) != secret(n)]
    assert not lost, f"scrub must keep {lost}"


STRICT_REMOVED = (
    "MY_API_KEY",
    "MY_APIKEY",
    "db_password",
    "GITHUB_TOKEN",
    "SSH_PRIVATE_KEY",
    "AWS_CREDENTIALS",
    "SECRET",
    "app_secrets_file",
    "PASSWD",
    "OPENAI_API_KEY",
)
STRICT_KEPT = ("KEYBOARD_LAYOUT", "MONKEY", "TOKENIZERS_PARALLELISM", "DATABASE_URL", "EDITOR")


@clause("BASH-ENV-04")
def test_strict_pattern(tools: Any, ws: Any) -> None:
    env = {**base_env(ws), MODE: "strict", **{n: secret(n) for n in STRICT_REMOVED + STRICT_KEPT}}
    env.update({"TMPDIR": "/tmp", "LC_ALL": "C.UTF-8", "USER": "someone", "TERM": "dumb"})
    seen, _ = child_env(tools, env)
    leaked = [n for n in STRICT_REMOVED if n in seen]
    assert not leaked, f"strict passed these through: {leaked}"
    lost = [
        n
        for n in (*STRICT_KEPT, "HOME", "LANG", "TMPDIR", "LC_ALL", "USER", "TERM")
        if n not in seen
    ]
    assert not lost, f"strict must keep {lost}"


@clause("BASH-ENV-04")
def test_strict_allowlist(tools: Any, ws: Any) -> None:
    env = {
        **base_env(ws),
        MODE: "strict",
        ALLOW: "my_api_key, Db_Password",
        "MY_API_KEY": "a",
        "db_password": "b",
        "OTHER_TOKEN": "c",
    }
    seen, _ = child_env(tools, env)
    assert seen.get("MY_API_KEY") == "a" and seen.get("db_password") == "b", sorted(seen)
    assert "OTHER_TOKEN" not in seen


@clause("BASH-ENV-05")
@pytest.mark.parametrize("mode", ["scrub", "strict"])
def test_removed_names_reported(tools: Any, ws: Any, mode: str) -> None:
    names = ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "INPUT_FIGMA_TOKEN"]
    env = {
        **base_env(ws),
        MODE: mode,
        "AGENTTOOLS_SESSION_ID": "x",
        **{n: secret(n) for n in names},
    }
    seen, result = child_env(tools, env)
    reported = result.details.get("envSanitized")
    assert isinstance(reported, list), f"details.envSanitized missing: {result.details}"
    removed = sorted(n for n in env if n not in seen)
    assert reported == sorted(set(reported)), f"must be sorted, each name once: {reported}"
    assert reported == removed, f"reported {reported}, the child lacked {removed}"
    wire = result.text + json.dumps(result.details)
    assert not [n for n in names if secret(n) in wire], "a removed value appears in the result"


@clause("BASH-RM-01")
def test_recoverable_delete(tools: Any, ws: Any) -> None:
    body = b"precious bytes \x00\x01 " + os.urandom(16).hex().encode()
    ws.put("a.txt", body)
    ws.put("d/inner.txt", b"inner")
    resolved = expect_ok(tools.call("bash", command="type -P rm")).text.strip()
    assert resolved not in ("/bin/rm", "/usr/bin/rm"), f"rm resolves to the system rm: {resolved}"
    result = expect_ok(tools.call("bash", command="rm a.txt"))
    assert not ws.exists("a.txt"), "rm must remove the file from its place"
    trash = result.details.get("trashDir")
    assert isinstance(trash, str) and os.path.isdir(trash), f"no details.trashDir: {result.details}"
    kept = []
    for directory, _, files in os.walk(trash):
        for name in files:
            with open(os.path.join(directory, name), "rb") as handle:
                kept.append(handle.read())
    assert body in kept, "the deleted file's bytes are not in the trash"
    expect_error(tools.call("bash", command="rm missing.txt"), "exited with code")
    expect_ok(tools.call("bash", command="rm -f missing.txt"))
    expect_error(tools.call("bash", command="rm d"), "exited with code")
    assert ws.exists("d/inner.txt"), "rm without -r must refuse a directory"
    expect_ok(tools.call("bash", command="rm -rf d"))
    assert not ws.exists("d")
