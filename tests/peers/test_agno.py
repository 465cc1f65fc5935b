"""agno's CodingTools as a peer: its manifest, the adapter's observations, and the strict run.

The strict run (kit_long) runs the suite against peers/agno/agenttools_agno.py with
peers/agno/expectations.toml; tests/peers/test_agno_deviations.py shows every entry of that
file by calling agno directly. Skipped without agno, unless AGENTTOOLS_REQUIRE_AGNO=1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.cli.runner import VERDICT_ONLY
from pytest_agenttools.connect.base import ProtocolError
from pytest_agenttools.connect.inprocess import InProcessAdapter
from pytest_agenttools.harness.contract import Manifest, ToolCall, ToolResult
from pytest_agenttools.harness.observations import (
    EditObservation,
    GlobObservation,
    WriteObservation,
)
from tests.peers.demos import expectation_entries
from tests.peers.test_agno_deviations import ADAPTER, need_agno
from tests.support import strict_report

FACTORY = "agenttools_agno:create"


def test_manifest_is_valid_and_honest() -> None:
    raw = tomllib.loads((ADAPTER / "manifest.toml").read_text(encoding="utf-8"))
    manifest = Manifest.from_wire(raw, source="peers/agno/manifest.toml")
    assert manifest.tools == frozenset({"write", "edit", "glob"})
    assert manifest.features == frozenset(), "edit_file replaces one occurrence, nothing more"
    assert manifest.glob_dialect == "bash", "pathlib's glob, declared as the nearest dialect"
    assert manifest.limit("glob.max_results") is not None
    assert manifest.limit("glob.timeout_s") is None, "find has no time limit"
    assert manifest.line_numbers == "pipe", "read_file's rows: '   2 | text'"
    assert manifest.argument_name("write", "content") == "contents"
    assert manifest.argument_name("edit", "old_string") == "old_text"
    pin = (ADAPTER / "requirements.txt").read_text(encoding="utf-8").split()
    assert pin == [f"agno=={raw['version']}"], "the manifest names the pinned version"


# --- the adapter, on real files -----------------------------------------------------------------


@pytest.fixture(scope="module")
def adapter() -> Iterator[InProcessAdapter]:
    need_agno()
    sys.path.insert(0, str(ADAPTER))
    started = InProcessAdapter(FACTORY, call_timeout=60)
    try:
        started.start()
        yield started
    finally:
        started.close()
        sys.path.remove(str(ADAPTER))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def run(adapter: InProcessAdapter, ws: Path, tool: str, **arguments: Any) -> ToolResult:
    return adapter.call(ToolCall(tool=tool, arguments=arguments, cwd=str(ws)))


def test_initialize_names_the_installed_version(adapter: InProcessAdapter) -> None:
    from importlib.metadata import version

    manifest = adapter.start()
    assert (manifest.name, manifest.version) == ("agno", version("agno"))


def test_write_observation(adapter: InProcessAdapter, ws: Path) -> None:
    written = run(adapter, ws, "write", path="sub/w.txt", content="héllo\nhello\n")
    assert written.text == "Wrote 3 lines to sub/w.txt", "agno's own text, as agno words it"
    observation = written.observation
    assert isinstance(observation, WriteObservation)
    assert (observation.path, observation.bytes_written) == (str(ws / "sub" / "w.txt"), 13)
    assert (ws / "sub" / "w.txt").stat().st_size == observation.bytes_written


def test_edit_observation(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "f.txt").write_text("one\ntwo\nthree\nfour\n")
    edited = run(adapter, ws, "edit", file_path="f.txt", old_string="three", new_string="3")
    assert edited.text.startswith("--- a/f.txt\n+++ b/f.txt\n@@ "), "agno's unified diff"
    change = edited.observation
    assert isinstance(change, EditObservation)
    assert (change.path, change.replacements, change.first_changed_line) == (
        str(ws / "f.txt"),
        1,
        3,
    )
    assert (ws / "f.txt").read_text() == "one\ntwo\n3\nfour\n"
    same = run(adapter, ws, "edit", file_path="f.txt", old_string="3", new_string="3").observation
    assert isinstance(same, EditObservation) and same.replacements == 0, "'No changes needed'"


def test_glob_observation(adapter: InProcessAdapter, ws: Path) -> None:
    for name in ("a.py", "sub/b.py", "c.txt"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("")
    result = run(adapter, ws, "glob", pattern="**/*.py")
    assert result.text == "a.py\nsub/b.py", "find's paths, relative to its base directory"
    observation = result.observation
    assert isinstance(observation, GlobObservation)
    assert observation.paths == (str(ws / "a.py"), str(ws / "sub" / "b.py"))
    assert not observation.truncated
    capped = run(adapter, ws, "glob", pattern="*", limit=1)
    assert capped.text.endswith("\n[Results limited to 1 entries]")
    cut = capped.observation
    assert isinstance(cut, GlobObservation) and len(cut.paths) == 1 and cut.truncated
    assert cut.next_offset is None, "find names no way to continue"
    none = run(adapter, ws, "glob", pattern="*.zzz").observation
    assert isinstance(none, GlobObservation) and none.paths == ()


def test_refusals_are_not_errors(adapter: InProcessAdapter, ws: Path) -> None:
    """agno's tools return their refusals; its framework reports them as successes, and so does
    the adapter (with no observation: nothing was done)."""
    missing = run(adapter, ws, "edit", file_path="nope.txt", old_string="a", new_string="b")
    assert (missing.is_error, missing.text, missing.details) == (
        False,
        "Error: File not found: nope.txt",
        {},
    )


def test_validation_errors_are_errors(adapter: InProcessAdapter, ws: Path) -> None:
    """A failed FunctionCall (pydantic's validation) is what agno marks tool_call_error."""
    every = run(
        adapter, ws, "edit", file_path="f.txt", old_string="a", new_string="b", replace_all=True
    )
    assert every.is_error and "replace_all\n  Unexpected keyword argument" in every.text
    (ws / "f.txt").write_text("a a\n")
    once = run(
        adapter, ws, "edit", file_path="f.txt", old_string="a ", new_string="b ", replace_all=False
    )
    assert not once.is_error, "replace_all=false is edit_file's only behaviour: left out"
    null = run(adapter, ws, "write", path="n.txt", content="null")
    assert null.is_error and "contents\n  Input should be a valid string" in null.text
    assert not (ws / "n.txt").exists()
    shapeless = adapter.call(ToolCall(tool="write", arguments=["x"], cwd=str(ws)))
    assert shapeless.is_error and "not a valid JSON object" in shapeless.text


def test_undeclared_tool_is_a_protocol_error(adapter: InProcessAdapter, ws: Path) -> None:
    for tool, arguments in (("read", {"path": "f.txt"}), ("bash", {"command": "ls"})):
        with pytest.raises(ProtocolError, match=f"unknown tool '{tool}'"):
            run(adapter, ws, tool, **arguments)


# --- the suite, strict, with the expectations ---------------------------------------------------


@pytest.mark.kit_long(45)
def test_suite_against_agno_is_exactly_as_expected(tmp_path: Path) -> None:
    need_agno()
    bin_dir = os.path.dirname(sys.executable)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ADAPTER), os.environ.get("PYTHONPATH")])),
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
    }
    exe = shutil.which("agenttools", path=bin_dir) or "agenttools"
    proc = subprocess.run(
        [
            exe,
            "run",
            "--impl",
            FACTORY,
            "--expectations",
            str(ADAPTER / "expectations.toml"),
            "--strict",
            "--report-json",
            "agno.json",
            "--",
            "-n",
            "2",
            *VERDICT_ONLY,  # the outcomes are the check
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = strict_report(proc, tmp_path / "agno.json")
    assert report["implementation"]["name"] == "agno"
    summary = report["summary"]
    listed = expectation_entries(ADAPTER / "expectations.toml")
    assert report["expectations"]["entries"] == len(listed)
    assert summary["passed"] >= 150, "the write, edit and glob clauses really run"
    data = tomllib.loads((ADAPTER / "expectations.toml").read_text(encoding="utf-8"))
    # an expected failure is xfailed, or blocked by an earlier failure of the same test
    assert summary["xfailed"] + summary["blocked"] >= len(data["xfail"])
