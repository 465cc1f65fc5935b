"""The docs' examples are executed, so they cannot rot: manifests load, transcripts parse."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from pytest_agenttools.contract import PROTOCOL, ContractViolation, Manifest
from pytest_agenttools.observations import parse_observation

DOCS = Path(__file__).parent.parent / "docs"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(name: str, language: str) -> list[str]:
    text = (DOCS / name).read_text(encoding="utf-8")
    return [body for lang, body in FENCE.findall(text) if lang == language]


def test_manifest_toml_example_is_valid() -> None:
    (example,) = blocks("adapter-protocol.md", "toml")
    manifest = Manifest.from_wire(tomllib.loads(example), source="docs example")
    assert manifest.limit("bash.output_max_bytes") is not None
    assert manifest.limit("bash.output_max_bytes").unit == "chars"  # type: ignore[union-attr]
    assert manifest.argument_name("read", "offset") == "start_line"
    assert manifest.offset_base("read") == 0 and manifest.offset_base("grep") == 0
    assert manifest.glob_dialect == "minimatch"


def test_manifest_example_with_a_typo_is_rejected() -> None:
    (example,) = blocks("adapter-protocol.md", "toml")
    broken = example.replace('"read.max_bytes"', '"read.max_byte"')
    with pytest.raises(ContractViolation, match=r"did you mean 'read\.max_bytes'"):
        Manifest.from_wire(tomllib.loads(broken), source="docs example")
    unquoted = example.replace('"read.max_lines" = 2000', "read.max_lines = 2000")
    with pytest.raises(ContractViolation, match="quote dotted limit names"):
        Manifest.from_wire(tomllib.loads(unquoted), source="docs example")


def _strict(line: str) -> dict[str, object]:
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    message = json.loads(line, parse_constant=refuse)
    assert isinstance(message, dict)
    return message


def test_transcript_lines_are_strict_json_rpc() -> None:
    transcript = next(b for b in blocks("adapter-protocol.md", "text") if "> {" in b)
    lines = [line for line in transcript.splitlines() if line[:2] in ("> ", "< ")]
    assert len(lines) >= 10
    calls: dict[object, str] = {}
    for line in lines:
        message = _strict(line[2:])
        assert message["jsonrpc"] == "2.0"
        if line.startswith("> ") and message.get("method") == "call":
            params = message["params"]
            assert isinstance(params, dict)
            calls[message["id"]] = str(params["tool"])
        if line.startswith("> ") and message.get("method") == "initialize":
            assert message["params"] == {"protocol": PROTOCOL}
        if line.startswith("< ") and message.get("id") == 1:
            result = message["result"]
            assert isinstance(result, dict) and result["protocol"] == PROTOCOL
            Manifest.from_wire(result["manifest"], source="transcript")
        result = message.get("result")
        if line.startswith("< ") and isinstance(result, dict) and "content" in result:
            details = result.get("details") or {}
            assert isinstance(details, dict)
            if "observation" in details:
                parse_observation(calls[message["id"]], details["observation"])
            else:
                assert result["isError"], f"a success result without an observation: {line}"
