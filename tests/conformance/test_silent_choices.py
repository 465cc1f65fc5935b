"""The three choices the source designs leave silent have one answer each (issue 31):
``run_in_background`` without ``bash.background`` is refused (BASH-BG-07), a misspelt sanitize
mode refuses the command (BASH-ENV-07), ``pages`` on a file that is not a PDF is an error
(READ-PDF-06). A reference without ``bash.background`` passes BASH-BG-07; the reference's other
answers are checked here in process, call by call."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools
from tests.conformance.no_background import NoBackground
from tests.support import suite_report


def test_a_reference_without_background_refuses_it(tmp_path: Path) -> None:
    tools = NoBackground()
    raw = tools.call("bash", {"command": "touch ran", "run_in_background": True}, str(tmp_path))
    assert raw["isError"], raw
    assert "bash.background" in raw["content"][0]["text"]
    assert not (tmp_path / "ran").exists()
    assert "bash.background" not in tools.manifest()["features"]


def test_bg_07_passes_a_reference_without_background(tmp_path: Path) -> None:
    data = suite_report(tmp_path, "BASH-BG-07", impl="tests.conformance.no_background:create")
    assert data["clauses"]["BASH-BG-07"] == "passed", data["output"]


def test_the_reference_refuses_a_misspelt_mode(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/bin"), "AGENTTOOLS_BASH_ENV_SANITIZE": "strikt"}
    raw = ReferenceTools().call("bash", {"command": "touch ran"}, str(tmp_path), env=env)
    assert raw["isError"] and "strikt" in raw["content"][0]["text"], raw
    assert not (tmp_path / "ran").exists()


def test_the_reference_refuses_pages_of_a_text_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    raw = ReferenceTools().call("read", {"path": "a.txt", "pages": "1"}, str(tmp_path))
    assert raw["isError"] and "pages" in raw["content"][0]["text"], raw
