"""The observation shapes have one source, ``spec/observations.toml``: the parser reads exactly
its keys, the protocol document shows exactly its tables, and the MCP mapping takes its keys."""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

import pytest

from pytest_agenttools.connect.mcp.mapping import OBSERVATION_KEYS
from pytest_agenttools.harness import observations
from pytest_agenttools.spec import observation_schema
from tests.support import REPO

PARSERS: dict[str, Any] = {
    "read": observations.ReadObservation,
    "write": observations.WriteObservation,
    "edit": observations.EditObservation,
    "grep": observations.GrepObservation,
    "glob": observations.GlobObservation,
    "bash": observations.BashObservation,
}
#: the protocol document's heading of each tool's table
HEADINGS = {tool: tool for tool in PARSERS} | {"bash": "bash and task_output"}


def keys_read(source: str, reader: str = "f") -> set[str]:
    """The keys a parser reads through its field reader ``reader``: ``f.string("path")`` ..."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == reader
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


@pytest.mark.parametrize("tool", list(PARSERS))
def test_the_parser_reads_exactly_the_keys_of_the_schema(tool: str) -> None:
    source = inspect.getsource(PARSERS[tool].parse).strip()
    source = "\n".join(line[4:] if line.startswith("    ") else line for line in source.split("\n"))
    assert keys_read(source) == observation_schema.keys(tool)


@pytest.mark.parametrize("tool", list(PARSERS))
def test_the_protocol_document_shows_the_schema(tool: str) -> None:
    doc = (REPO / "docs" / "adapter-protocol.md").read_text(encoding="utf-8")
    section = doc.split("\n## Observations\n", 1)[1].split("\n## ", 1)[0]
    body = section.split(f"\n### {HEADINGS[tool]}\n", 1)[1].split("\n### ", 1)[0]
    shown = [line for line in body.splitlines() if line.startswith("|")]
    expected = observation_schema.table(tool)
    assert shown == expected, (
        f"docs/adapter-protocol.md, Observations, {HEADINGS[tool]}: put this table there "
        "(it is drawn from src/pytest_agenttools/spec/observations.toml):\n" + "\n".join(expected)
    )


def test_the_mcp_mapping_takes_the_schemas_keys() -> None:
    assert dict(OBSERVATION_KEYS) == dict(observation_schema.all_keys())
    assert OBSERVATION_KEYS["task_output"] == OBSERVATION_KEYS["bash"]


def test_a_key_the_parser_does_not_read_is_seen() -> None:
    """The check can fail: a parser that skips a key, or reads one the schema lacks."""
    parser = 'def parse(cls, f):\n    return cls(path=f.string("path"), x=g.string("other"))\n'
    assert keys_read(parser) == {"path"}
    assert keys_read(parser) != observation_schema.keys("write")


def test_every_row_names_keys_in_the_snake_case_of_the_contract() -> None:
    for field in observation_schema.fields():
        assert field.keys and all(re.fullmatch(r"[a-z][a-z_]*", k) for k in field.keys), field
