"""The declarable line-number styles (``output.line_numbers``): what each one accepts."""

from __future__ import annotations

import pytest

from pytest_agenttools.harness.contract import LINE_NUMBER_STYLE, Manifest
from pytest_agenttools.harness.violation import ContractViolation


def manifest(style: str) -> Manifest:
    return Manifest.from_wire({"name": "t", "tools": ["read"], "output": {"line_numbers": style}})


@pytest.mark.parametrize(
    "line", ["    12 | text", "12 | text", "00012| text", "00012 | text", "12| text"]
)
def test_pipe_accepts_the_number_then_a_bar(line: str) -> None:
    assert manifest("pipe").line_number_style.parse(line) == (12, "text")


@pytest.mark.parametrize(
    "line",
    ["    12|text", "    12  | text", "    12 |text", "    12\u2192text", "12\ttext", "x | y"],
)
def test_pipe_refuses_other_layouts(line: str) -> None:
    assert manifest("pipe").line_number_style.parse(line) is None


def test_pipe_keeps_the_text_after_the_one_space() -> None:
    style = LINE_NUMBER_STYLE["pipe"]
    assert style.parse("     3 |  indented | bar") == (3, " indented | bar")
    assert style.parse(style.render(7, "a | b")) == (7, "a | b")


@pytest.mark.parametrize("name", ["arrow", "tab", "pipe"])
def test_every_numbered_style_reads_what_it_renders(name: str) -> None:
    style = LINE_NUMBER_STYLE[name]
    assert style.parse(style.render(1234, "x\ty")) == (1234, "x\ty")


def test_none_carries_no_numbers() -> None:
    assert manifest("none").line_number_style.parse("     1\u2192text") is None


def test_an_unknown_style_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(ContractViolation) as refused:
        manifest("bar")
    message = str(refused.value)
    assert "manifest.output.line_numbers" in message and "'bar'" in message
    for name in ("arrow", "none", "pipe", "tab"):
        assert repr(name) in message
