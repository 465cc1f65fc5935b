"""The docs' examples are executed, so they cannot rot: manifests load, transcripts parse, the
example adapters run, the CI gate script runs, every shown command parses and every reference to
a doc's section resolves."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from pytest_agenttools.harness.contract import PROTOCOL, ContractViolation, Manifest
from pytest_agenttools.harness.observations import (
    ReadObservation,
    WriteObservation,
    parse_observation,
)
from tests.support import REPO

DOCS = REPO / "docs"
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


# --- every reference to a doc and its section resolves ---------------------------------------

ROOT = DOCS.parent
LINK = re.compile(r"\]\(([^)\s#]*)(?:#([^)\s]+))?\)")
MENTION = re.compile(r"\bdocs/([a-z-]+\.md)(?:,\s+([A-Z][A-Za-z]+(?: [a-z][a-z]+)*)|#([a-z-]+))?")
SOURCES = [
    *sorted(DOCS.glob("*.md")),
    ROOT / "README.md",
    *sorted((ROOT / "src" / "pytest_agenttools").rglob("*.py")),
    *sorted((ROOT / "src" / "pytest_agenttools" / "cli" / "templates").rglob("*.tmpl")),
]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [h.strip() for h in re.findall(r"^#+ (.+)$", text, re.M)]


def test_every_doc_link_and_section_reference_resolves() -> None:
    problems = []
    for source in SOURCES:
        text = source.read_text(encoding="utf-8")
        for target, anchor in LINK.findall(text) if source.suffix == ".md" else []:
            if not target or "://" in target or target.startswith("mailto:"):
                continue
            path = (source.parent / target).resolve()
            if not path.exists():
                problems.append(f"{source.name}: link to missing {target}")
            elif anchor and anchor not in [slug(h) for h in headings(path)]:
                problems.append(f"{source.name}: {target}#{anchor}: no such section")
        for name, section, anchor in MENTION.findall(text):
            path = DOCS / name
            if not path.exists():
                problems.append(f"{source.name}: mentions missing docs/{name}")
                continue
            titles = headings(path)
            if section and not any(h.lower().startswith(section.lower()) for h in titles):
                problems.append(f"{source.name}: docs/{name}, {section}: no such section")
            if anchor and anchor not in [slug(h) for h in titles]:
                problems.append(f"{source.name}: docs/{name}#{anchor}: no such section")
    assert not problems, "\n".join(problems)


# --- every agenttools command shown in the docs parses ----------------------------------------


COMMAND = re.compile(r"(?<![\w./@-])agenttools (?=[a-z])")
SUBCOMMANDS = ("run", "call", "init", "serve", "report", "baseline", "selfcheck", "clauses")


def shown_commands() -> list[tuple[str, str, bool]]:
    """``(source, command, whole)`` for every ``agenttools ...`` command in the docs and the
    README: ``whole`` for a code block line (continuations and YAML folded blocks joined), not
    for inline code in prose, which may leave out what the sentence says."""
    found = []
    for source in [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]:
        text = source.read_text(encoding="utf-8")
        for _, body in FENCE.findall(text):
            joined = re.sub(r"\\\n\s*", " ", body)
            joined = re.sub(
                r"run: >\n((?:\s{10,}.*\n)+)", lambda m: " ".join(m[1].split()) + "\n", joined
            )
            for line in joined.splitlines():
                at = COMMAND.search(line)
                if at is None:
                    continue
                before = line[: at.start()].strip()
                if before == "" or before.endswith(("run:", "$", "&&", "||", ";", "then")):
                    found.append((source.name, line[at.start() :], True))
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for code in re.findall(r"`(agenttools [^`]+)`", prose):
            found.append((source.name, " ".join(code.split()), False))
    return [(s, c, w) for s, c, w in found if c.split()[1] in SUBCOMMANDS or w]


def test_every_shown_agenttools_command_parses() -> None:
    import argparse
    import shlex

    from pytest_agenttools.cli.commands import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = shown_commands()
    assert len(commands) >= 30
    problems = []
    for source, command, whole in commands:
        command = re.split(r"\s+(?:#|>|\|\||&&|;)\s", command + " ")[0]
        command = re.sub(r"\[[^\]]*\]", "", command).replace("\\|", "|")
        words = shlex.split(command)[1:]
        if "--" in words:
            words = words[: words.index("--")]
        if whole:
            try:
                parser.parse_args(words)
            except SystemExit:
                problems.append(f"{source}: {command}")
            continue
        known = sub.choices[words[0]]._option_string_actions
        unknown = [w for w in words if w.startswith("-") and w not in known]
        if unknown:
            problems.append(f"{source}: {command}: unknown {unknown}")
    assert not problems, "commands the CLI does not accept:\n" + "\n".join(problems)


# --- the adapters of writing-an-adapter.md run -------------------------------------------------


def only_block(name: str, language: str) -> str:
    (body,) = blocks(name, language)
    return body


def test_python_adapter_example_runs(tmp_path: Path) -> None:
    import sys

    from pytest_agenttools.connect.base import ProtocolError
    from pytest_agenttools.connect.inprocess import InProcessAdapter
    from pytest_agenttools.harness.contract import ToolCall

    source = tmp_path / "adapter.py"
    source.write_text(only_block("writing-an-adapter.md", "python"), encoding="utf-8")
    path = list(sys.path)
    adapter = InProcessAdapter(f"{source}:create")
    try:
        manifest = adapter.start()
        assert manifest.tools == frozenset({"read", "write"})
        ws = str(tmp_path)
        wrote = adapter.call(ToolCall("write", {"path": "d/a.txt", "content": "one\ntwo\n"}, ws))
        assert (tmp_path / "d" / "a.txt").read_bytes() == b"one\ntwo\n"
        written = wrote.observation
        assert isinstance(written, WriteObservation)
        assert written.bytes_written == 8 and written.created
        page = adapter.call(ToolCall("read", {"path": "d/a.txt", "limit": 1}, ws))
        seen = page.observation
        assert isinstance(seen, ReadObservation)
        assert (seen.lines, seen.truncated, seen.next_offset) == (("one",), True, 2)
        assert "one" in page.text and "offset=2" in page.text
        rest = adapter.call(ToolCall("read", {"path": "d/a.txt", "offset": 2}, ws)).observation
        assert isinstance(rest, ReadObservation)
        assert (rest.lines, rest.truncated) == (("two",), False)
        missing = adapter.call(ToolCall("read", {"path": "nope"}, ws))
        assert missing.is_error and "nope" in missing.text
        with pytest.raises(ProtocolError) as fault:
            adapter.call(ToolCall("grep", {"pattern": "x"}, ws))
        assert fault.value.code == -32602
    finally:
        adapter.close()
        sys.path[:] = path
        sys.modules.pop("adapter", None)


def example_server(language: str, tmp_path: Path) -> list[str]:
    import shutil
    import subprocess

    program = {"js": "node", "go": "go"}[language]
    if not shutil.which(program):
        pytest.skip(f"{program} is not on PATH")
    if language == "js":
        (tmp_path / "my-adapter.mjs").write_text(only_block("writing-an-adapter.md", "js"))
        return ["node", str(tmp_path / "my-adapter.mjs")]
    (tmp_path / "main.go").write_text(only_block("writing-an-adapter.md", "go"))
    (tmp_path / "go.mod").write_text("module example\n\ngo 1.19\n")
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    built = subprocess.run(
        ["go", "build", "-o", "my-adapter", "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    return [str(tmp_path / "my-adapter")]


@pytest.mark.parametrize("language", ["js", "go"])
def test_stdio_adapter_examples_run(tmp_path: Path, language: str) -> None:
    from tests.cli.test_scaffold import Server

    workspace = tmp_path / "ws"
    workspace.mkdir()
    server = Server(example_server(language, tmp_path), tmp_path)
    try:
        hello = server.request(1, "initialize", {"protocol": PROTOCOL})["result"]
        assert hello["protocol"] == PROTOCOL
        manifest = Manifest.from_wire(hello["manifest"], source="example")
        assert "write" in manifest.tools
        arguments = {"path": "sub/a.txt", "content": "one\ntwo\n"}
        call = {"tool": "write", "arguments": arguments, "cwd": str(workspace)}
        wrote = server.request(2, "call", call)["result"]
        assert wrote["isError"] is False
        seen = parse_observation("write", wrote["details"]["observation"])
        assert isinstance(seen, WriteObservation) and seen.bytes_written == 8
        assert (workspace / "sub" / "a.txt").read_bytes() == b"one\ntwo\n"
        if "read" in manifest.tools:
            call = {
                "tool": "read",
                "arguments": {"path": "sub/a.txt", "limit": 1},
                "cwd": str(workspace),
            }
            page = server.request(3, "call", call)["result"]
            shown = parse_observation("read", page["details"]["observation"])
            assert isinstance(shown, ReadObservation)
            assert (shown.lines, shown.next_offset) == (("one",), 2)
        bad = server.request(
            4, "call", {"tool": "frobnicate", "arguments": {}, "cwd": str(workspace)}
        )
        assert bad["error"]["code"] == -32602
        assert server.request(5, "shutdown")["result"] is None
        assert server.proc.wait(timeout=10) == 0
    finally:
        server.close()


# --- the gate script of ci-gates.md runs ------------------------------------------------------


@pytest.mark.kit_long(85)
def test_ci_gate_script_runs_against_a_skeleton(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = next(b for b in blocks("ci-gates.md", "sh") if "agenttools-gate.sh" in b)
    (tmp_path / "agenttools-gate.sh").write_text(script)
    from pytest_agenttools.cli.scaffold import write_skeleton

    write_skeleton("python", tmp_path, name="gated")
    adapter = tmp_path / "my-adapter"
    adapter.write_text("#!/bin/sh\nexec agenttools serve --impl adapter.py:create\n")
    adapter.chmod(0o755)
    (tmp_path / "agenttools-expectations.toml").write_text(
        (tmp_path / "expectations.toml").read_text()
    )
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    env.pop("AGENTTOOLS_KIT", None)
    gate = subprocess.run(
        ["bash", "agenttools-gate.sh"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert gate.returncode == 0, gate.stdout[-3000:] + gate.stderr[-3000:]
    report = json.loads((tmp_path / "agenttools-report.json").read_text())
    assert report["implementation"]["name"] == "gated"
    assert "stdio adapter" in report["implementation"]["adapter"]
    assert (tmp_path / "agenttools-report.html").read_text().startswith("<!DOCTYPE html>")
    assert (tmp_path / "agenttools-report.md").read_text().startswith("## Agent tools conformance")
    (tmp_path / "agenttools-expectations.toml").write_text(
        '[[xfail]]\nid = "tool:read"\nreason = "TODO: say which behaviour breaks this clause"\n'
    )
    refused = subprocess.run(
        ["bash", "agenttools-gate.sh"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert refused.returncode != 0, "the gate must refuse a TODO reason"


def test_readme_status_counts_are_true() -> None:
    """The README's status paragraph counts clauses, broken and alternative implementations:
    each number must be today's."""
    from pytest_agenttools.cli.selfcheck import broken_implementations
    from pytest_agenttools.implementations.alternatives import STYLES
    from pytest_agenttools.spec.clauses import load

    status = (ROOT / "README.md").read_text(encoding="utf-8").split("## ")[0]
    status = " ".join(status.split())
    active = [c for c in load().by_id().values() if not c.retired]

    def said(pattern: str) -> int:
        found = re.search(pattern, status)
        assert found, f"the README's status no longer says {pattern!r}"
        return int(found.group(1))

    assert said(r"(\d+) active clauses") == len(active)
    for tool in ("read", "write", "edit", "grep", "glob", "bash"):
        assert said(rf"\b{tool} (\d+)") == sum(c.tool == tool for c in active), tool
    assert said(r"robust (\d+)") == sum(c.tool == "robust" for c in active)
    assert said(r"(\d+) MUST") == sum(c.level == "MUST" for c in active)
    assert said(r"(\d+) SHOULD") == sum(c.level == "SHOULD" for c in active)
    assert said(r"(\d+) deliberately broken implementations") == len(broken_implementations())
    assert said(r"(\d+) alternative correct implementations") == len(STYLES)
