"""The table of alternative styles: one style is one module ending in ``STYLE = Style(...)``,
found without another edit; a module that is no style is an error, never passed over."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_agenttools.implementations import alternatives
from pytest_agenttools.implementations.alternatives._base import Alternative, Style, ToolStyle

TOY = """
from pytest_agenttools.implementations.alternatives._base import Style, ToolStyle

STYLE = Style(
    name="toy_style",
    modelled_on="a kit test",
    summary="read's text upper-cased",
    read=ToolStyle(manifest={"output": {"line_numbers": "none"}}),
)
"""


@pytest.fixture
def extra_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on the package's path, as a new module in the package would be."""
    monkeypatch.setattr(alternatives, "__path__", [*alternatives.__path__, str(tmp_path)])
    return tmp_path


def test_a_new_module_is_a_new_style(extra_dir: Path) -> None:
    (extra_dir / "toy_style.py").write_text(TOY)
    styles = alternatives._read_styles()
    assert set(styles) == {*alternatives.STYLES, "toy_style"}
    toy = Alternative(styles["toy_style"])
    assert toy.manifest()["name"] == "alternative-toy_style"
    assert toy.manifest()["output"]["line_numbers"] == "none"


def test_a_module_that_is_no_style_is_an_error(extra_dir: Path) -> None:
    (extra_dir / "not_a_style.py").write_text("STYLES = {}\n")
    with pytest.raises(TypeError, match="must define STYLE = Style"):
        alternatives._read_styles()


def test_each_style_changes_only_the_tools_it_names() -> None:
    for name, style in alternatives.STYLES.items():
        assert style.name == name
        assert set(style.tools()) <= {"read", "write", "edit", "grep", "glob", "bash"}
        assert style.tools(), f"{name} changes nothing"
    only_read = Style("x", "y", "z", read=ToolStyle())
    assert list(only_read.tools()) == ["read"]
