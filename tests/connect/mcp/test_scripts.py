"""Scripted MCP mappings: the result builders, ``session.finish``'s before-state, errors that
name the right culprit, and mapping files that are not TOML.

``session.finish`` is checked against a real MCP server: the reference served over MCP
(``agenttools serve --mcp``), whose write and edit do what any correct implementation does.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.connect.base import AdapterError
from pytest_agenttools.connect.mcp.client import McpAdapter, load_mapping
from pytest_agenttools.connect.mcp.script import McpSession, Reply
from pytest_agenttools.connect.mcp.transforms import Context, Spread, parse_transform
from pytest_agenttools.harness.assertions import edit_obs, read_obs, write_obs
from pytest_agenttools.harness.contract import ToolCall
from tests.support import SERVERS

REQUIRED = os.environ.get("AGENTTOOLS_REQUIRE_MCP") == "1"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 8


def need_sdk() -> None:
    if importlib.util.find_spec("mcp") is None:
        if REQUIRED:
            pytest.fail("the mcp SDK is not installed: pip install 'pytest-agenttools[mcp]'")
        pytest.skip("the mcp SDK is not installed (pip install 'pytest-agenttools[mcp]')")


def reference_command() -> str:
    exe = shutil.which("agenttools", path=os.path.dirname(sys.executable)) or "agenttools"
    return f"{exe} serve --mcp --root {{tmp}}"


# ---- result builders (no server)


def test_result_builds_text_image_and_passed_blocks() -> None:
    result = McpSession.result(
        "two blocks follow",
        images=[("image/png", PNG)],
        blocks=[
            {"type": "image", "data": base64.b64encode(b"GIF89a").decode(), "mimeType": "image/gif"}
        ],
        observation={"kind": "image", "mime_type": "image/png"},
    )
    assert [b["type"] for b in result.content] == ["text", "image", "image"]
    assert result.images == [("image/png", PNG), ("image/gif", b"GIF89a")]
    call = ToolCall("read", {"path": "a.png"}, "/w")
    assert read_obs(result.with_call(call)).mime_type == "image/png"
    # no text given: no text block at all
    assert McpSession.result(images=[("image/png", PNG)]).content[0]["type"] == "image"
    # a block the contract does not know is refused at once, with the reason
    with pytest.raises(Exception, match="must be 'text' or 'image'"):
        McpSession.result(blocks=[{"type": "audio", "data": "", "mimeType": "audio/wav"}])


def test_image_and_pdf_results_carry_their_observations() -> None:
    call = ToolCall("read", {"path": "a.png"}, "/w")
    image = McpSession.image_result(base64.b64encode(PNG).decode(), "image/png").with_call(call)
    assert image.images == [("image/png", PNG)]
    assert read_obs(image).kind == "image" and read_obs(image).mime_type == "image/png"
    pdf = McpSession.pdf_result(
        [(2, "second page"), (3, "third page")], total_pages=5, next_page=4
    ).with_call(ToolCall("read", {"path": "a.pdf", "pages": "2-5"}, "/w"))
    seen = read_obs(pdf)
    assert (seen.kind, seen.pages, seen.page_texts) == (
        "pdf",
        (2, 3),
        ("second page", "third page"),
    )
    assert (seen.total_pages, seen.truncated, seen.next_offset) == (5, True, 4)
    assert "== Page 3 ==\nthird page" in pdf.text
    whole = McpSession.pdf_result([(1, "only")], total_pages=1, text="custom")
    assert whole.text == "custom"
    assert not read_obs(whole.with_call(ToolCall("read", {"path": "a.pdf"}, "/w"))).truncated


def test_reply_reads_image_blocks_and_embedded_blobs() -> None:
    blob = base64.b64encode(b"%PDF-1.4 ...").decode()
    reply = Reply(
        {
            "content": [
                {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.pdf", "blob": blob,
                                                  "mimeType": "application/pdf"}},
                {"type": "text", "text": "t"},
            ]
        },
        "fetch",
        {},
    )  # fmt: skip
    assert reply.images == [("image/png", PNG)]
    assert reply.resources == [("application/pdf", b"%PDF-1.4 ...")]
    assert reply.text == "t"


# ---- transforms never raise on values they cannot convert


def test_a_5000_digit_page_number_passes_to_the_server_unchanged() -> None:
    transform = parse_transform({"name": "pages_to_range", "start": "from", "count": "n"}, "x")
    huge = "9" * 5000
    for value in (huge, f"1-{huge}", f"{huge}-{huge}"):
        assert transform.apply(value, Context({}, "/w")) == Spread({"from": value})
    assert transform.apply("2-4", Context({}, "/w")) == Spread({"from": 2, "n": 3})
    choose = parse_transform({"name": "choose", "values": {"1": "one"}}, "x")
    assert choose.apply(10**5000, Context({}, "/w")) == 10**5000  # str() of it would raise


# ---- mapping files that are not valid


def test_a_mapping_that_is_not_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "mapping.toml"
    bad.write_text('[tools.read]\ntool = "read"\n[tools.write\ntool = "write"\n')
    with pytest.raises(AdapterError, match=r"mapping.toml' is not valid TOML: .*line 3"):
        load_mapping(bad)


def test_agenttools_call_and_run_report_a_bad_mapping_without_a_traceback(
    tmp_path: Path,
) -> None:
    from tests.support import run_agenttools

    bad = tmp_path / "mapping.toml"
    bad.write_text('[tools.read\ntool = "read"\n')
    for argv in (
        ["call", "read", "{}", "--mcp", "server", "--mcp-mapping", str(bad)],
        ["run", "--mcp", "server", "--mcp-mapping", str(bad), "--clauses", "READ-LN-01"],
    ):
        proc = run_agenttools(*argv, cwd=tmp_path, timeout=120)
        shown = proc.stdout + proc.stderr
        assert proc.returncode != 0, shown
        assert "Traceback" not in shown, shown
        assert f"mapping file {str(bad)!r} is not valid TOML" in shown, shown
        assert "line 1" in shown, shown


# ---- session.finish judges the state before the call (a real MCP server)

FINISH_SCRIPT = """
async def write(call, session):
    reply = await session.mapped(call)
    return session.finish(call, reply)

async def edit(call, session):
    if call.arguments.get("new_string") == "via-call":
        before = session.before(call)
        sent = {**call.arguments, "file_path": call.cwd + "/" + call.arguments["file_path"]}
        reply = await session.call("edit", sent)
        return session.finish(call, reply, before=before)
    if call.arguments.get("new_string") == "forgot":
        sent = {**call.arguments, "file_path": call.cwd + "/" + call.arguments["file_path"]}
        reply = await session.call("edit", sent)
        return session.finish(call, reply)
    reply = await session.mapped(call)
    return session.finish(call, reply)
"""

FINISH_MAPPING = """
script = "finish.py"
[manifest]
tools = ["write", "edit"]
features = ["edit.replace_all"]
[tools.write]
tool = "write"
paths = ["path"]
result = { observation = "written" }
[tools.edit]
tool = "edit"
paths = ["file_path"]
result = { observation = "edited" }
"""


def test_session_finish_uses_the_state_from_before_the_call(tmp_path: Path) -> None:
    need_sdk()
    (tmp_path / "finish.py").write_text(FINISH_SCRIPT)
    (tmp_path / "mapping.toml").write_text(FINISH_MAPPING)
    adapter = McpAdapter(reference_command(), tmp_path / "mapping.toml", call_timeout=60)
    adapter.start()
    ws = Path(os.path.realpath(tempfile_dir(adapter.tmp)))
    try:
        new = ToolCall("write", {"path": "new.txt", "content": "a b a b a\n"}, str(ws))
        written = adapter.call(new).with_call(new)
        assert not written.is_error, written.text
        assert write_obs(written).created is True  # absent before the call
        again = adapter.call(new).with_call(new)
        assert write_obs(again).created is False
        edit = ToolCall(
            "edit",
            {"file_path": "new.txt", "old_string": "a", "new_string": "c", "replace_all": True},
            str(ws),
        )
        edited = adapter.call(edit).with_call(edit)
        assert not edited.is_error, edited.text
        assert (ws / "new.txt").read_text() == "c b c b c\n"
        assert edit_obs(edited).replacements == 3  # counted before: after, there are none
        by_call = ToolCall(
            "edit",
            {"file_path": "new.txt", "old_string": "b", "new_string": "via-call",
             "replace_all": True},
            str(ws),
        )  # fmt: skip
        assert edit_obs(adapter.call(by_call).with_call(by_call)).replacements == 2
        forgot = ToolCall(
            "edit",
            {"file_path": "new.txt", "old_string": "c", "new_string": "forgot",
             "replace_all": True},
            str(ws),
        )  # fmt: skip
        with pytest.raises(AdapterError, match=r"pass before=session.before\(call\)"):
            adapter.call(forgot)
    finally:
        adapter.close()
        shutil.rmtree(ws, ignore_errors=True)


def tempfile_dir(root: str) -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="agt-finish-", dir=root)


# ---- errors of the kit's translation are not blamed on the script

MAPPED_SCRIPT = """
async def read(call, session):
    return session.finish(call, await session.mapped(call))
"""


def test_a_page_number_no_int_holds_reaches_the_server_and_blames_no_script(
    tmp_path: Path,
) -> None:
    need_sdk()
    (tmp_path / "mapped.py").write_text(MAPPED_SCRIPT)
    (tmp_path / "mapping.toml").write_text(
        'script = "mapped.py"\n'
        '[tools.read]\ntool = "show"\n'
        'transforms = { pages = { name = "pages_to_range", start = "start", count = "count" } }\n'
    )
    command = f"{sys.executable} {SERVERS / 'mcp_echo_server.py'}"
    adapter = McpAdapter(command, tmp_path / "mapping.toml", call_timeout=30)
    adapter.start()
    try:
        huge = "9" * 5000
        result = adapter.call(ToolCall("read", {"path": "a.pdf", "pages": huge}, "/w"))
        received: Any = result.details["received"]
        assert received["start"] == huge and "count" not in received
    finally:
        adapter.close()
