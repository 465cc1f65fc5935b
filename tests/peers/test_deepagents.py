"""deepagents 0.7.32, a Python peer from the package registry, through the in-process adapter.

The manifest is checked always. The rest needs deepagents (``pip install -r
peers/deepagents/requirements.txt``; ``.ci/run`` does it) and is skipped without it, unless
AGENTTOOLS_REQUIRE_DEEPAGENTS=1 (set in CI) makes the absence a failure:

- the observations the adapter reads from deepagents' own output, for every tool, parsed with
  the kit's ``parse_observation`` through the real in-process adapter;
- the suite against deepagents with ``--strict`` and its expectations file, for every tool
  (``SUITE_TOOLS``), so that no entry of the file goes stale unseen
  (peers/deepagents/README.md, "Keeping the expectations true").
"""

from __future__ import annotations

import json
import os
import re
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
    BashObservation,
    EditObservation,
    GlobObservation,
    GrepObservation,
    ReadObservation,
    WriteObservation,
)
from tests.peers.test_deepagents_deviations import ADAPTER, need_deepagents
from tests.support import strict_report

FACTORY = "agenttools_deepagents:create"
#: every tool deepagents has, and the robustness clauses: the whole expectations file is judged
SUITE_TOOLS = ("read", "write", "edit", "grep", "glob", "bash", "robust")
ENTRY_TOOL = re.compile(r"(?:test_)?([a-z]+)|([A-Z]+)-")


def test_manifest_is_valid_and_honest() -> None:
    raw = tomllib.loads((ADAPTER / "manifest.toml").read_text(encoding="utf-8"))
    manifest = Manifest.from_wire(raw, source="peers/deepagents/manifest.toml")
    assert manifest.tools == frozenset({"read", "write", "edit", "grep", "glob", "bash"})
    assert manifest.offset_base("read") == 0, "read_file's offset and 'next offset' count from 0"
    assert manifest.argument_name("read", "path") == "file_path"
    read_bytes = manifest.limit("read.max_bytes")
    assert read_bytes is not None and (read_bytes.value, read_bytes.unit) == (80000, "chars")
    assert set(manifest.settings) <= set(manifest.limits), "a setting changes a declared limit"


# --- the adapter, on real files -----------------------------------------------------------------


@pytest.fixture(scope="module")
def adapter() -> Iterator[InProcessAdapter]:
    need_deepagents()
    sys.path.insert(0, str(ADAPTER))
    started = InProcessAdapter(FACTORY, call_timeout=60)
    try:
        started.start()
        yield started
    finally:
        started.close()
        sys.path.remove(str(ADAPTER))


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace, with the kit's ripgrep on PATH as in the suite run."""
    from deepagents.backends import filesystem

    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    filesystem._resolve_ripgrep_path.cache_clear()
    root = tmp_path / "ws"
    root.mkdir()
    return root


def run(adapter: InProcessAdapter, ws: Path, tool: str, **arguments: Any) -> ToolResult:
    return adapter.call(ToolCall(tool=tool, arguments=arguments, cwd=str(ws)))


def read(adapter: InProcessAdapter, ws: Path, **arguments: Any) -> ReadObservation:
    result = run(adapter, ws, "read", **arguments)
    assert not result.is_error, result.text
    observation = result.observation
    assert isinstance(observation, ReadObservation)
    for line in observation.lines:
        assert line in result.text, "every observed line is in the text the model reads"
    return observation


def test_initialize_names_the_installed_version(adapter: InProcessAdapter) -> None:
    from importlib.metadata import version

    manifest = adapter.start()
    assert (manifest.name, manifest.version) == ("deepagents", version("deepagents"))


def test_read_pages(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "a.txt").write_text("".join(f"line{n}\n" for n in range(1, 301)))
    page = read(adapter, ws, path="a.txt", offset=10, limit=3)
    assert (page.start_line, page.lines, page.total_lines) == (
        10,
        ("line10", "line11", "line12"),
        300,
    )
    assert (page.truncated, page.truncated_by, page.next_offset) == (True, "limit", 13)
    first = read(adapter, ws, path=str(ws / "a.txt"))
    assert (first.start_line, len(first.lines), first.next_offset) == (1, 100, 101)
    assert first.truncated_by == "lines", "the default page of 100 lines"
    last = read(adapter, ws, path="a.txt", offset=299)
    assert (last.lines, last.truncated, last.next_offset) == (("line299", "line300"), False, None)
    clamped = read(adapter, ws, path="a.txt", offset=0, limit=2)  # below the notice, the page
    assert (clamped.start_line, clamped.lines) == (1, ("line1", "line2"))


def test_read_empty_nothing_and_errors(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "e.txt").write_text("")
    empty = read(adapter, ws, path="e.txt")
    assert (empty.lines, empty.total_lines) == ((), 0)
    (ws / "a.txt").write_text("one\n")
    nothing = read(adapter, ws, path="a.txt", limit=0)
    assert (nothing.lines, nothing.truncated) == ((), False)
    missing = run(adapter, ws, "read", path="missing.txt")
    assert missing.is_error and missing.details == {}
    refused = run(adapter, ws, "read", path="a.txt", limit="x")
    assert refused.is_error and refused.text.startswith(
        "Error invoking tool 'read_file' with kwargs"
    )
    assert "limit: Input should be a valid integer" in refused.text
    shapeless = adapter.call(ToolCall(tool="read", arguments=[], cwd=str(ws)))
    assert shapeless.is_error and "must be an object, got an array" in shapeless.text


def test_read_cut_by_the_size_budget(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "wide.txt").write_text("".join(f"{'w' * 900} {n}\n" for n in range(200)))
    page = read(adapter, ws, path="wide.txt", limit=200)
    assert page.truncated_by == "bytes" and page.next_offset == page.end_line + 1
    assert page.lines == tuple(f"{'w' * 900} {n}" for n in range(len(page.lines)))
    assert sum(len(line) + 1 for line in page.lines) <= 80000
    (ws / "long.txt").write_text("y" * 100_000 + "\nafter\n")
    long = read(adapter, ws, path="long.txt")
    assert (long.cut_lines, long.truncated, long.next_offset) == ((1,), True, None)
    assert 0 < len(long.lines[0]) < 80000


def test_read_image(adapter: InProcessAdapter, ws: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (ws / "p.png").write_bytes(png)
    result = run(adapter, ws, "read", path="p.png")
    observation = result.observation
    assert isinstance(observation, ReadObservation)
    assert (observation.kind, observation.mime_type) == ("image", "image/png")
    assert result.images == [("image/png", png)]


def test_write_and_edit(adapter: InProcessAdapter, ws: Path) -> None:
    written = run(adapter, ws, "write", path="sub/w.txt", content="héllo\nhello\n")
    observation = written.observation
    assert isinstance(observation, WriteObservation)
    assert (observation.path, observation.bytes_written) == (str(ws / "sub" / "w.txt"), 13)
    assert (ws / "sub" / "w.txt").stat().st_size == observation.bytes_written
    edited = run(
        adapter,
        ws,
        "edit",
        file_path="sub/w.txt",
        old_string="llo",
        new_string="LLO",
        replace_all=True,
    )
    change = edited.observation
    assert isinstance(change, EditObservation)
    assert (change.path, change.replacements) == (str(ws / "sub" / "w.txt"), 2)
    assert (ws / "sub" / "w.txt").read_text() == "héLLO\nheLLO\n"
    refused = run(adapter, ws, "edit", file_path="sub/w.txt", old_string="zz", new_string="y")
    assert refused.is_error and refused.details == {}


def grep(adapter: InProcessAdapter, ws: Path, **arguments: Any) -> GrepObservation:
    result = run(adapter, ws, "grep", **arguments)
    assert not result.is_error, result.text
    observation = result.observation
    assert isinstance(observation, GrepObservation)
    for path in observation.paths:
        assert path in result.text
    return observation


def test_grep_modes(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "a.txt").write_text("needle one\nhay\nneedle: two\n")
    (ws / "b").mkdir()
    (ws / "b" / "c.txt").write_text("  needle\n")
    a, c = str(ws / "a.txt"), str(ws / "b" / "c.txt")
    files = grep(adapter, ws, pattern="needle")
    assert (files.mode, files.files, files.truncated) == ("files_with_matches", (a, c), False)
    counts = grep(adapter, ws, pattern="needle", output_mode="count")
    assert [(x.path, x.count) for x in counts.counts] == [(a, 2), (c, 1)]
    content = grep(adapter, ws, pattern="needle", output_mode="content")
    assert [(x.path, x.line, x.text, x.match) for x in content.lines] == [
        (a, 1, "needle one", True),
        (a, 3, "needle: two", True),
        (c, 1, "  needle", True),
    ]
    none = grep(adapter, ws, pattern="a.*b")  # the regex hint after 'No matches found'
    assert (none.files, none.truncated) == ((), False)


def test_grep_cut(adapter: InProcessAdapter, ws: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 1001)
    capped = grep(adapter, ws, pattern="hit", output_mode="content")
    assert len(capped.lines) == 1000 and capped.truncated
    (ws / "min.js").write_text("needle" + "é" * 100_000 + "\nneedle two\n")
    cut = grep(adapter, ws, pattern="needle", path="min.js", output_mode="content")
    assert cut.truncated and [x.cut for x in cut.lines] == [True]


def test_glob(adapter: InProcessAdapter, ws: Path) -> None:
    for name in ("a.py", "sub/b.py", "c.txt", "it's.py"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("")
    result = run(adapter, ws, "glob", pattern="*.py")
    observation = result.observation
    assert isinstance(observation, GlobObservation)
    assert observation.paths == (str(ws / "a.py"), str(ws / "it's.py"), str(ws / "sub" / "b.py"))
    assert not observation.truncated
    none = run(adapter, ws, "glob", pattern="*.zzz").observation
    assert isinstance(none, GlobObservation) and none.paths == ()


def bash(
    adapter: InProcessAdapter, ws: Path, **arguments: Any
) -> tuple[ToolResult, BashObservation]:
    result = run(adapter, ws, "bash", **arguments)
    observation = result.observation
    assert isinstance(observation, BashObservation)
    return result, observation


def test_bash_observations(adapter: InProcessAdapter, ws: Path) -> None:
    _, done = bash(adapter, ws, command="echo out; echo err >&2; exit 3")
    assert (done.exit_code, done.signal, done.output, done.timed_out) == (
        3,
        None,
        "out\nerr",
        False,
    )
    _, killed = bash(adapter, ws, command="echo before; kill -KILL $$")
    # a failing command's output loses its trailing whitespace (LocalShellBackend rstrips it)
    assert (killed.exit_code, killed.signal, killed.output) == (None, "SIGKILL", "before")
    _, quiet = bash(adapter, ws, command="true")
    assert (quiet.exit_code, quiet.output, quiet.timeout_s) == (0, "", 120)
    _, late = bash(adapter, ws, command="sleep 5", timeout=1)
    assert (late.timed_out, late.exit_code, late.output, late.timeout_s) == (True, None, "", 1)
    _, big = bash(adapter, ws, command="seq 1 100000")
    assert (
        big.truncated and big.output.startswith("1\n2\n") and big.raw["output_head"] == big.output
    )
    assert len(big.output.encode()) <= 100_000
    refused, nothing = bash(adapter, ws, command="true", timeout=1.5)
    assert refused.is_error and (nothing.exit_code, nothing.output, nothing.timeout_s) == (
        None,
        "",
        None,
    )


def test_bash_environment_and_settings(adapter: InProcessAdapter, ws: Path) -> None:
    call = ToolCall(
        tool="bash",
        arguments={"command": "echo $ONLY_THIS; pwd"},
        cwd=str(ws),
        env={"ONLY_THIS": "from-the-call", "PATH": os.environ["PATH"]},
    )
    observation = adapter.call(call).observation
    assert isinstance(observation, BashObservation)
    assert observation.output == f"from-the-call\n{ws}\n"
    applied = adapter.configure({"bash.output_max_bytes": 10, "read.max_lines": 5})
    try:
        assert applied == {"bash.output_max_bytes": 10}, "only deepagents' own knobs"
        _, cut = bash(adapter, ws, command="seq 1 100")
        assert cut.truncated and cut.output == "1\n2\n3\n4\n5\n"
    finally:
        adapter.configure({"bash.output_max_bytes": 100_000})


def test_unknown_tool_is_a_protocol_error(adapter: InProcessAdapter, ws: Path) -> None:
    with pytest.raises(ProtocolError, match="unknown tool 'task_output'"):
        run(adapter, ws, "task_output", task_id="x")


# --- the suite, strict, with the expectations ---------------------------------------------------


def entry_tool(ident: str) -> str:
    found = ENTRY_TOOL.match(ident)
    assert found is not None, f"{ident}: an entry names a clause id or a test node id"
    return (found[1] or found[2]).lower()


def expectations_for(tools: tuple[str, ...], path: Path) -> int:
    """The entries of ``tools`` in a file of their own; how many."""
    data = tomllib.loads((ADAPTER / "expectations.toml").read_text(encoding="utf-8"))
    lines = []
    for kind in ("xfail", "skip"):
        for entry in data.get(kind, []):
            if entry_tool(entry["id"]) in tools:
                lines += [f"[[{kind}]]", f"id = {json.dumps(entry['id'])}"]
                lines += [f"reason = {json.dumps(entry['reason'])}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return len(lines) // 4


@pytest.mark.kit_long(95)
def test_suite_against_deepagents_is_exactly_as_expected(tmp_path: Path) -> None:
    need_deepagents()
    expected = expectations_for(SUITE_TOOLS, tmp_path / "expectations.toml")
    bin_dir = os.path.dirname(sys.executable)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ADAPTER), os.environ.get("PYTHONPATH")])),
        # deepagents' grep looks for rg on PATH; the kit's own ripgrep is beside this interpreter
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
    }
    exe = shutil.which("agenttools", path=bin_dir) or "agenttools"
    proc = subprocess.run(
        [
            exe,
            "run",
            "--impl",
            FACTORY,
            "--tools",
            ",".join(SUITE_TOOLS),
            "--expectations",
            str(tmp_path / "expectations.toml"),
            "--strict",
            "--report-json",
            "deepagents.json",
            "--",
            "-n",
            "2",
            *VERDICT_ONLY,  # the outcomes are the check
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    report = strict_report(proc, tmp_path / "deepagents.json")
    assert report["implementation"]["name"] == "deepagents"
    summary = report["summary"]
    assert report["expectations"]["entries"] == expected
    assert summary["passed"] >= 300, "every tool's clauses really run"
    assert summary["xfailed"] >= expected, "every deviation shows up as an expected failure"
