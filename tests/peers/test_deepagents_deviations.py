"""Every entry of peers/deepagents/expectations.toml, shown by calling deepagents directly.

Each ``Deviation`` names a behaviour of deepagents 0.7.32 and the expectation entries it
accounts for; its demo calls deepagents' own tool objects (``FilesystemMiddleware`` over a
``LocalShellBackend``, no adapter in between) and asserts that behaviour. A test checks that the
entries and the deviations cover each other exactly, so no entry stays in the file unshown.
The demos need deepagents (``pip install -r peers/deepagents/requirements.txt``); they are
skipped without it, unless AGENTTOOLS_REQUIRE_DEEPAGENTS=1 (set in CI).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import inspect
import os
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from pytest_agenttools.conformance.bash_strategies import RERUN_ADVICE
from tests.peers.demos import assert_each_entry_shown_once
from tests.support import REPO

ADAPTER = REPO / "peers" / "deepagents"
REQUIRED = os.environ.get("AGENTTOOLS_REQUIRE_DEEPAGENTS") == "1"


def need_deepagents() -> None:
    if importlib.util.find_spec("deepagents") is None:
        if REQUIRED:
            pytest.fail(
                "deepagents is not installed: pip install -r peers/deepagents/requirements.txt"
            )
        pytest.skip(
            "deepagents is not installed (pip install -r peers/deepagents/requirements.txt)"
        )


@dataclass(frozen=True)
class Raised:
    """An exception that left the tool (the agent's tool node would stop the run)."""

    error: BaseException


@dataclass(frozen=True)
class Answer:
    status: str
    text: str
    content: Any
    artifact: Any


def call(cwd: Path, tool: str, /, *, env: dict[str, str] | None = None, **args: Any) -> Any:
    """One deepagents tool call, as the agent's tool node makes it: an Answer, or Raised."""
    from deepagents.backends import LocalShellBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from langchain.tools import ToolRuntime

    backend = LocalShellBackend(root_dir=cwd, virtual_mode=False, env=env, inherit_env=env is None)
    middleware = FilesystemMiddleware(backend=backend)
    tools = {t.name: t for t in middleware.tools}
    runtime: Any = ToolRuntime(
        state={"messages": [], "files": {}},
        context=None,
        config={},
        stream_writer=lambda _chunk: None,
        tool_call_id="demo",
        store=None,
    )
    try:
        message = tools[tool].invoke({**args, "runtime": runtime})
    except Exception as exc:
        return Raised(exc)
    finally:
        middleware._glob_executor.shutdown(wait=False)
    content = message.content
    return Answer(
        message.status, content if isinstance(content, str) else "", content, message.artifact
    )


def ok(answer: Any) -> Answer:
    assert isinstance(answer, Answer) and answer.status == "success", answer
    return answer


def failed(answer: Any) -> Answer:
    assert isinstance(answer, Answer) and answer.status == "error", answer
    return answer


def body(answer: Answer) -> str:
    """The lines under read_file's status header."""
    return answer.text.split(" @@\n", 1)[1]


@pytest.fixture
def rg_on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """ripgrep from the kit's own dependency, as an activated environment would find it."""
    from deepagents.backends import filesystem

    bin_dir = os.path.dirname(sys.executable)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    filesystem._resolve_ripgrep_path.cache_clear()
    assert filesystem._resolve_ripgrep_path(), "ripgrep (a kit dependency) must be on PATH"
    yield
    filesystem._resolve_ripgrep_path.cache_clear()


@contextlib.contextmanager
def survivors(marker: str) -> Iterator[list[psutil.Process]]:
    """Processes whose command line holds ``marker``, found after the block; ended afterwards."""
    found: list[psutil.Process] = []
    try:
        yield found
    finally:
        time.sleep(0.3)
        for proc in psutil.process_iter(["cmdline"]):
            with contextlib.suppress(psutil.Error):
                if marker in " ".join(proc.info["cmdline"] or []):
                    found.append(proc)
        # started by this demo: end them by pid
        for proc in found:
            with contextlib.suppress(psutil.Error):
                proc.kill()


def peak_allocation(action: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- read ---------------------------------------------------------------------------------------


def lax_offset(ws: Path) -> None:
    (ws / "a.txt").write_text("one\ntwo\n")
    assert ok(call(ws, "read_file", file_path=str(ws / "a.txt"), offset=True)).text == (
        "@@ lines 2-2 of 2 @@\ntwo"
    )


def nonpositive_limit(ws: Path) -> None:
    (ws / "a.txt").write_text("one\ntwo\nthree\n")
    for limit in (0, -1, -5, -(10**18)):
        answer = ok(call(ws, "read_file", file_path=str(ws / "a.txt"), limit=limit))
        assert answer.text.startswith("System reminder: no lines were read because `limit`")


def binary_shown(ws: Path) -> None:
    (ws / "b.dat").write_bytes(b"\x00\x01\x02PAYLOAD\x00\n")
    assert body(ok(call(ws, "read_file", file_path=str(ws / "b.dat")))) == "\x00\x01\x02PAYLOAD\x00"


def bmp_not_named(ws: Path) -> None:
    from PIL import Image

    for name in ("screen.bmp", "screen"):
        Image.new("RGB", (40, 30), (200, 30, 30)).save(ws / name, format="BMP")
        answer = call(ws, "read_file", file_path=str(ws / name))
        assert isinstance(answer, Answer), answer
        said = answer.text.replace(str(ws / name), "")
        assert "'utf-8' codec can't decode" in said and "bmp" not in said.lower(), answer


def video_shown_without_extension(ws: Path) -> None:
    from pytest_agenttools.conformance.test_read_formats import VIDEOS

    (ws / "clip-mp4").write_bytes(VIDEOS["mp4"])
    assert "ftypisom" in body(ok(call(ws, "read_file", file_path=str(ws / "clip-mp4"))))
    (ws / "clip-webm").write_bytes(VIDEOS["webm"])
    answer = failed(call(ws, "read_file", file_path=str(ws / "clip-webm")))
    assert "'utf-8' codec can't decode" in answer.text and "video" not in answer.text.lower()


def bom_shown(ws: Path) -> None:
    (ws / "b.txt").write_bytes(b"\xef\xbb\xbffirst\nsecond\n")
    assert body(ok(call(ws, "read_file", file_path=str(ws / "b.txt")))) == "\ufefffirst\nsecond"
    (ws / "only.txt").write_bytes(b"\xef\xbb\xbf")
    assert ok(call(ws, "read_file", file_path=str(ws / "only.txt"))).text == (
        "@@ lines 1-1 of 1 @@\n\ufeff"
    )


def default_limit_not_a_cap(ws: Path) -> None:
    (ws / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 201)))
    default = ok(call(ws, "read_file", file_path=str(ws / "f.txt")))
    assert default.text.startswith("@@ lines 1-100 of 200 | next offset 100 @@")
    asked = ok(call(ws, "read_file", file_path=str(ws / "f.txt"), limit=120))
    assert asked.text.startswith("@@ lines 1-120 of 200 | next offset 120 @@")


def long_line_without_continuation(ws: Path) -> None:
    (ws / "big.txt").write_text("y" * 100_000 + "\nafter\n")
    text = ok(call(ws, "read_file", file_path=str(ws / "big.txt"))).text
    header = next(line for line in text.split("\n") if line.startswith("@@ "))
    assert header.startswith("@@ lines 1-1 of 2 | truncated mid-line |"), header
    assert "next offset" not in header and "after" not in text


def devices_not_found(ws: Path) -> None:
    for device in ("/dev/null", "/dev/zero"):
        answer = failed(call(ws, "read_file", file_path=device))
        assert answer.text == f"Error: File '{device}' not found"


def utf8_only_read(ws: Path) -> None:
    (ws / "w.txt").write_bytes("\ufeffhi\n".encode("utf-16-le"))
    (ws / "l.txt").write_bytes(b"caf\xe9\n")
    assert (
        "codec can't decode byte 0xff"
        in failed(call(ws, "read_file", file_path=str(ws / "w.txt"))).text
    )
    assert (
        "codec can't decode byte 0xe9"
        in failed(call(ws, "read_file", file_path=str(ws / "l.txt"))).text
    )


def image_by_name(ws: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (ws / "screenshot.txt").write_bytes(png)
    (ws / "notes.png").write_text("plain text\n")
    assert "byte 0x89" in failed(call(ws, "read_file", file_path=str(ws / "screenshot.txt"))).text
    blocks = ok(call(ws, "read_file", file_path=str(ws / "notes.png"))).content
    assert [b["type"] for b in blocks] == ["image"] and blocks[0]["mime_type"] == "image/png"


def crlf_dropped(ws: Path) -> None:
    (ws / "c.txt").write_bytes(b"alpha\r\nbeta\nc\r\n")
    assert body(ok(call(ws, "read_file", file_path=str(ws / "c.txt")))) == "alpha\nbeta\nc"


def splitlines(ws: Path) -> None:
    (ws / "cr.txt").write_bytes(b"one\rtwo\rthree\r")
    assert ok(call(ws, "read_file", file_path=str(ws / "cr.txt"))).text == (
        "@@ lines 1-3 of 3 @@\none\ntwo\nthree"
    )
    # a line holding a form feed counts as two: three lines in the file, four in the header
    (ws / "ff.txt").write_bytes(b"one\n\x0c\ntwo\n")
    assert ok(call(ws, "read_file", file_path=str(ws / "ff.txt"))).text.startswith(
        "@@ lines 1-4 of 4 @@\n"
    )


def paging_loses_the_file(ws: Path) -> None:
    (ws / "ff.txt").write_text("a\x0cb\nc\u2028d\n")
    # four lines counted, two shown, then two blank rows padded in
    assert ok(call(ws, "read_file", file_path=str(ws / "ff.txt"))).text == (
        "@@ lines 1-4 of 4 @@\na\x0cb\nc\u2028d\n\n"
    )
    blank_file_reads_empty(ws)
    bom_shown(ws)


def blank_file_reads_empty(ws: Path) -> None:
    for name, data in (("crlf.txt", b"\r\n"), ("blank.txt", b"\n\n  \n")):
        (ws / name).write_bytes(data)
        assert ok(call(ws, "read_file", file_path=str(ws / name))).text == (
            "@@ lines 1-1 @@\nSystem reminder: File exists but has empty contents"
        )


def whole_file_in_memory(ws: Path) -> None:
    size = 16 << 20
    with open(ws / "huge.txt", "wb") as handle:
        for _ in range(size // 1024):
            handle.write(b"x" * 1023 + b"\n")
    peak = peak_allocation(lambda: call(ws, "read_file", file_path=str(ws / "huge.txt"), limit=1))
    assert peak > size, f"page one of a 16 MiB file allocated only {peak} bytes"


def no_follow(ws: Path) -> None:
    (ws / "target.txt").write_text("1\n")
    (ws / "link.txt").symlink_to("target.txt")
    link = str(ws / "link.txt")
    for answer in (
        call(ws, "read_file", file_path=link),
        call(ws, "edit_file", file_path=link, old_string="1", new_string="2"),
        call(ws, "write_file", file_path=link, content="new\n"),
    ):
        assert "[Errno 40] Too many levels of symbolic links" in failed(answer).text
    assert (ws / "target.txt").read_text() == "1\n"


def dotdot_refused(ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("a\n")
    spelled = f"{ws}/./sub/../sub/f.txt"
    answer = failed(call(ws, "edit_file", file_path=spelled, old_string="a", new_string="b"))
    assert answer.text == f"Error: Path traversal not allowed: {spelled}"
    answer = failed(call(ws, "write_file", file_path=f"{ws}/sub/../x.txt", content="x\n"))
    assert answer.text.startswith("Error: Path traversal not allowed")


def aliases_refused(ws: Path) -> None:
    (ws / "dir").mkdir()
    (ws / "dir" / "f.txt").write_text("slot00\nslot01\n")
    (ws / "alias.txt").symlink_to("dir/f.txt")
    dotted = failed(
        call(
            ws, "edit_file", file_path=f"{ws}/dir/../dir/f.txt", old_string="slot00", new_string="x"
        )
    )
    assert "Path traversal not allowed" in dotted.text
    for answer in (
        call(ws, "edit_file", file_path=str(ws / "alias.txt"), old_string="slot01", new_string="y"),
        call(ws, "write_file", file_path=str(ws / "alias.txt"), content="z\n"),
    ):
        assert "[Errno 40]" in failed(answer).text


# --- edit ---------------------------------------------------------------------------------------


def lax_replace_all(ws: Path) -> None:
    (ws / "f.txt").write_text("a a\n")
    answer = ok(
        call(
            ws,
            "edit_file",
            file_path=str(ws / "f.txt"),
            old_string="a",
            new_string="b",
            replace_all="yes",
        )
    )
    assert answer.text.startswith("Successfully replaced 2 instance(s)")
    assert (ws / "f.txt").read_text() == "b b\n"


def edit_binary(ws: Path) -> None:
    (ws / "b.bin").write_bytes(b"\x00\x01text\x00\n")
    ok(call(ws, "edit_file", file_path=str(ws / "b.bin"), old_string="text", new_string="TEXT"))
    assert (ws / "b.bin").read_bytes() == b"\x00\x01TEXT\x00\n"


def edit_utf8_only(ws: Path) -> None:
    (ws / "l.txt").write_bytes(b"caf\xe9\nline two\n")
    answer = failed(
        call(ws, "edit_file", file_path=str(ws / "l.txt"), old_string="line two", new_string="2")
    )
    assert "codec can't decode byte 0xe9" in answer.text
    assert (ws / "l.txt").read_bytes() == b"caf\xe9\nline two\n"


def endings_become_lf(ws: Path) -> None:
    cases = {
        "crlf.txt": (b"a\r\nb\r\nc\r\n", b"a\nB\nc\n", False),
        "bom.txt": (b"\xef\xbb\xbfa\r\nb\r\n", b"\xef\xbb\xbfa\nB\n", False),
        "cr.txt": (b"1\r2\rb\r", b"1\n2\nB\n", False),
        "mixed.txt": (b"b\r\nb\nb\r", b"B\nB\nB\n", True),
    }
    for name, (before, after, every) in cases.items():
        (ws / name).write_bytes(before)
        ok(
            call(
                ws,
                "edit_file",
                file_path=str(ws / name),
                old_string="b",
                new_string="B",
                replace_all=every,
            )
        )
        assert (ws / name).read_bytes() == after, name


def no_op_edit(ws: Path) -> None:
    (ws / "f.txt").write_text("abc\n")
    answer = ok(
        call(ws, "edit_file", file_path=str(ws / "f.txt"), old_string="abc", new_string="abc")
    )
    assert answer.text.startswith("Successfully replaced 1 instance(s)")


def ambiguity_without_lines(ws: Path) -> None:
    (ws / "f.txt").write_text("x\ndup\ny\ndup\nz\ndup\n")
    answer = failed(
        call(ws, "edit_file", file_path=str(ws / "f.txt"), old_string="dup", new_string="D")
    )
    assert answer.text.startswith("Error: String 'dup' appears 3 times in file.")
    assert [c for c in answer.text if c.isdigit()] == ["3"], "the count, and no line number"


def not_found_text(ws: Path) -> None:
    (ws / "target_z9.txt").write_text("one\ntwo\n")
    answer = failed(
        call(
            ws, "edit_file", file_path=str(ws / "target_z9.txt"), old_string="three", new_string="3"
        )
    )
    assert answer.text == "Error: String not found in file: 'three'"


# --- robustness ---------------------------------------------------------------------------------


def argv_raises(ws: Path) -> None:
    (ws / "a.txt").write_text("beta\n")
    cases: list[tuple[dict[str, Any], type[Exception]]] = [
        ({"pattern": "a\x00b"}, ValueError),
        ({"pattern": "a\ud800b"}, UnicodeEncodeError),
        ({"pattern": "beta", "glob": "a\x00b"}, ValueError),
        ({"pattern": "beta", "glob": "a\udfffb"}, UnicodeEncodeError),
        ({"pattern": "x" * (128 << 10)}, OSError),
        ({"pattern": "beta", "glob": "x" * (128 << 10)}, OSError),
    ]
    for args, kind in cases:
        raised = call(ws, "grep", path=str(ws), **args)
        assert isinstance(raised, Raised) and isinstance(raised.error, kind), (args, raised)
    raised = call(ws, "write_file", file_path=f"{ws}/a\x00b", content="x\n")
    assert isinstance(raised, Raised) and "embedded null byte" in str(raised.error)
    answer = failed(call(ws, "write_file", file_path=f"{ws}/f\ud800", content="x\n"))
    assert "codec can't encode" in answer.text


def huge_strings(ws: Path) -> None:
    (ws / "a.txt").write_text("gamma\n")
    raised = call(ws, "grep", pattern="x" * (1 << 20), path=str(ws))
    assert isinstance(raised, Raised) and getattr(raised.error, "errno", None) == errno.E2BIG
    long = f"{ws}/" + "x" * (1 << 20)
    assert (
        "[Errno 36] File name too long"
        in failed(call(ws, "edit_file", file_path=long, old_string="a", new_string="b")).text
    )
    assert (
        "[Errno 36] File name too long"
        in failed(call(ws, "glob", pattern="*", path=f"{ws}/" + "x" * (128 << 10))).text
    )
    for name in ("x" * 5000, "d" * 300 + "/a.txt"):
        shown = failed(call(ws, "read_file", file_path=f"{ws}/{name}")).text
        assert "[Errno 36] File name too long" in shown, shown[-200:]


def fuzz_reaches_raw_errors(ws: Path) -> None:
    assert (
        "[Errno 21] Is a directory"
        in failed(call(ws, "write_file", file_path=str(ws), content="x\n")).text
    )
    argv_raises(ws)


# --- write --------------------------------------------------------------------------------------


def in_place_write(ws: Path) -> None:
    target = ws / "f.txt"
    target.write_text("old\n")
    os.link(target, ws / "hard.txt")
    inode = target.stat().st_ino
    ok(call(ws, "write_file", file_path=str(target), content="new\n"))
    assert target.stat().st_ino == inode, "written in place, not replaced"
    assert (ws / "hard.txt").read_text() == "new\n", "another name of the file sees the new text"


def surrogate_truncates(ws: Path) -> None:
    (ws / "f.txt").write_text("intact\n")
    answer = failed(call(ws, "write_file", file_path=str(ws / "f.txt"), content="bad \ud800\n"))
    assert "codec can't encode" in answer.text
    assert (ws / "f.txt").read_bytes() == b"", "the old content is gone"


def written_as_given(ws: Path) -> None:
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfuno\r\ndos\r\n")
    (ws / "wide.txt").write_bytes("\ufeffalt\n".encode("utf-16-le"))
    ok(call(ws, "write_file", file_path=str(ws / "bom.txt"), content="uno\ndos\n"))
    ok(call(ws, "write_file", file_path=str(ws / "wide.txt"), content="neu é\n"))
    assert (ws / "bom.txt").read_bytes() == b"uno\ndos\n"
    assert (ws / "wide.txt").read_bytes() == "neu é\n".encode()


# --- grep and glob ------------------------------------------------------------------------------


def fixed_text_only(ws: Path) -> None:
    (ws / "a.txt").write_text("line one\nfoo( bar\n")
    assert ok(call(ws, "grep", pattern="l.ne", path=str(ws))).text.startswith("No matches found")
    assert ok(call(ws, "grep", pattern="foo(", path=str(ws))).text == f"{ws}/a.txt"
    schema = call_schema("grep")
    assert "literal" not in schema


def call_schema(tool: str) -> set[str]:
    from deepagents.backends import LocalShellBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware

    middleware = FilesystemMiddleware(backend=LocalShellBackend(virtual_mode=False))
    try:
        found = {t.name: t for t in middleware.tools}[tool]
        return set(found.args_schema.model_fields)  # type: ignore[union-attr]
    finally:
        middleware._glob_executor.shutdown(wait=False)


def dropped_arguments(ws: Path) -> None:
    assert call_schema("grep") == {"pattern", "path", "glob", "output_mode", "max_count"}
    assert call_schema("glob") == {"pattern", "path"}
    assert call_schema("execute") == {"command", "timeout"}
    (ws / "a.txt").write_text("NEEDLE\n")
    for extra in ({"ignore_case": True}, {"offset": "x"}, {"limit": -1}, {"literal": "yes"}):
        answer = ok(call(ws, "grep", pattern="needle", path=str(ws), **extra))
        assert answer.text == "No matches found", extra
    assert (
        ok(call(ws, "glob", pattern="*", path=str(ws), offset=-1, limit="x")).text
        == f"['{ws}/a.txt']"
    )
    ok(call(ws, "execute", command="touch ran", run_in_background="yes", cwd_override="/"))
    assert (ws / "ran").exists()
    ok(call(ws, "execute", command="touch fg", run_in_background=True))
    assert (ws / "fg").exists()  # run in the foreground: done when the call returns


def count_lines(ws: Path) -> None:
    (ws / "a.txt").write_text("x x\nx\n")
    assert (
        ok(call(ws, "grep", pattern="x", path=str(ws), output_mode="count")).text
        == f"{ws}/a.txt: 2"
    )


def no_paging(ws: Path) -> None:
    from deepagents.middleware.filesystem import GREP_TRUNCATION_NOTE

    (ws / "many.txt").write_text("hit\n" * 1001)
    text = ok(call(ws, "grep", pattern="hit", path=str(ws), output_mode="content")).text
    assert text.count(": hit") == 1000 and text.endswith(GREP_TRUNCATION_NOTE)
    assert "offset" not in GREP_TRUNCATION_NOTE
    for n in range(300):
        (ws / f"f{n:04d}.txt").write_text("")
    listed = ok(call(ws, "glob", pattern="f*.txt", path=str(ws))).text
    assert listed.count(".txt'") == 300, "every match in one answer, none held back"


def path_order(ws: Path) -> None:
    for n, name in enumerate(("a.txt", "b.txt", "c.txt")):
        (ws / name).write_text("needle\n")
        os.utime(ws / name, (1_000_000 + n * 1000, 1_000_000 + n * 1000))  # c is the newest
    assert ok(call(ws, "grep", pattern="needle", path=str(ws))).text == "\n".join(
        f"{ws}/{name}" for name in ("a.txt", "b.txt", "c.txt")
    )


def empty_pattern(ws: Path) -> None:
    (ws / "a.txt").write_text("x\n")
    assert ok(call(ws, "grep", pattern="", path=str(ws))).text == f"{ws}/a.txt"
    assert ok(call(ws, "glob", pattern="", path=str(ws))).text == "No files found"


def missing_path_success(ws: Path) -> None:
    (ws / "a.txt").write_text("needle\n")
    for path in ("nope", "no/such/dir", "missing.txt"):
        assert (
            ok(call(ws, "grep", pattern="needle", path=f"{ws}/{path}")).text == "No matches found"
        )
    for path in ("nope", "nope/deeper", "a.txt"):
        assert ok(call(ws, "glob", pattern="*", path=f"{ws}/{path}")).text == "No files found"


def glob_list_refused(ws: Path) -> None:
    raised = call(ws, "grep", pattern="needle", path=str(ws), glob=["*.txt", "*.yml"])
    assert isinstance(raised, Raised) and "glob\n  Input should be a valid string" in str(
        raised.error
    )


def no_secret_exclusion(ws: Path) -> None:
    for name in (
        ".env",
        ".ssh/id_rsa",
        "keys/id_ed25519",
        "config/server.pem",
        ".git/config",
        ".aws/credentials",
    ):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("secret needle\n")
    found = ok(call(ws, "grep", pattern="needle", path=str(ws / "config"))).text
    assert found == f"{ws}/config/server.pem"
    assert ok(call(ws, "grep", pattern="needle", path=str(ws / ".ssh"))).text == f"{ws}/.ssh/id_rsa"
    listed = (
        ok(call(ws, "glob", pattern="**/.env*", path=str(ws))).text
        + ok(call(ws, "glob", pattern="*", path=str(ws / ".aws"))).text
    )
    assert f"{ws}/.env" in listed and f"{ws}/.aws/credentials" in listed
    for pattern in ("**/*.pem", ".git/**", ".ssh/*", "**/id_*", ".env", "config/**", "**"):
        assert ok(call(ws, "glob", pattern=pattern, path=str(ws))).text != "No files found", pattern


def ripgrep_flags(ws: Path) -> None:
    (ws / ".hidden.txt").write_text("needle\n")
    (ws / "plain.txt").write_text("needle\n")
    assert ok(call(ws, "grep", pattern="needle", path=str(ws))).text == f"{ws}/plain.txt"
    config = ws / "rgconfig"
    config.write_text("--glob=!plain.txt\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RIPGREP_CONFIG_PATH", str(config))
        assert ok(call(ws, "grep", pattern="needle", path=str(ws))).text == "No matches found"
    with open(ws / "big.log", "wb") as handle:
        handle.write(b"needle\n")
        for _ in range(64):
            handle.write((b"x" * 1023 + b"\n") * 1024)
    assert f"{ws}/big.log" in ok(call(ws, "grep", pattern="needle", path=str(ws))).text


def long_matching_line(ws: Path) -> None:
    from deepagents.backends.utils import TRUNCATION_GUIDANCE

    (ws / "min.js").write_text("needle" + "é" * 100_000 + "\nneedle two\n")
    text = ok(call(ws, "grep", pattern="needle", path=str(ws), output_mode="content")).text
    assert text.endswith(TRUNCATION_GUIDANCE) and "needle two" not in text
    assert len(text) > 79_000, "the line is shown whole up to the cut of the whole answer"


def non_utf8_name(ws: Path) -> None:
    with open(os.fsencode(ws) + b"/caf\xe9.txt", "wb") as handle:
        handle.write(b"needle\n")
    (ws / "plain.txt").write_text("needle\n")
    assert ok(call(ws, "grep", pattern="needle", path=str(ws))).text == f"{ws}/plain.txt"


def glob_dotfiles(ws: Path) -> None:
    for name in (".bashrc", ".config/tool.toml", "top.py", "src/deep/c.py"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("")
    everything = [f"{ws}/.config/tool.toml", f"{ws}/src/deep/c.py", f"{ws}/top.py"]
    for pattern in ("*", "**"):
        # .bashrc left out (a segment not starting with '.' never matches a dotfile)
        assert ok(call(ws, "glob", pattern=pattern, path=str(ws))).text == str(everything)
    assert ok(call(ws, "glob", pattern="*.toml", path=str(ws))).text == str(everything[:1])
    # '**/' does not enter the dot-directory; a pattern ending in '/' matches no file
    assert ok(call(ws, "glob", pattern="**/*.toml", path=str(ws))).text == "No files found"
    assert ok(call(ws, "glob", pattern="src/deep/", path=str(ws))).text == "No files found"


def glob_dot_slash(ws: Path) -> None:
    (ws / "top.py").write_text("")
    assert ok(call(ws, "glob", pattern="./*.py", path=str(ws))).text == "No files found"
    assert ok(call(ws, "glob", pattern="*.py", path=str(ws))).text == f"['{ws}/top.py']"


def glob_repr_names(ws: Path) -> None:
    with open(os.fsencode(ws) + b"/bad\xff.txt", "w") as handle:
        handle.write("")
    assert ok(call(ws, "glob", pattern="*.txt", path=str(ws))).text == f"['{ws}/bad\\udcff.txt']"


# --- bash ---------------------------------------------------------------------------------------


def always_success(ws: Path) -> None:
    cases = {
        "echo partial; exit 3": "\n\nExit code: 3\n[Command failed with exit code 3]",
        "echo before; kill -TERM $$": "\n\nExit code: -15\n[Command failed with exit code -15]",
        "exit 3": "<no output>\n\nExit code: 3\n[Command failed with exit code 3]",
        "": "Error: Command must be a non-empty string.\n[Command failed with exit code 1]",
        "   ": "<no output>\n[Command succeeded with exit code 0]",
    }
    for command, ending in cases.items():
        assert ok(call(ws, "execute", command=command)).text.endswith(ending), command
    timed_out = ok(call(ws, "execute", command="echo so-far; sleep 5", timeout=1))
    assert timed_out.text.startswith("Error: Command timed out after 1 seconds")
    assert "so-far" not in timed_out.text and timed_out.artifact["exit_code"] == 124
    answer = call(ws / "gone", "execute", command="true")
    assert ok(answer).text.startswith("Error executing command (FileNotFoundError): [Errno 2]")


def integer_timeout(ws: Path) -> None:
    raised = call(ws, "execute", command="true", timeout=1.25)
    assert isinstance(raised, Raised) and "valid integer" in str(raised.error)


def shell_only_killed(ws: Path) -> None:
    marker = f"sleep 3{os.getpid() % 1000:03d}"
    command = f"trap 'touch trapped' TERM; {marker} & sh -c 'trap \"\" TERM; {marker}' & wait"
    with survivors(marker) as left:
        ok(call(ws, "execute", command=command, timeout=1))
    assert len(left) >= 2, "the children outlive the timeout (the one ignoring TERM too)"
    assert not (ws / "trapped").exists(), "no SIGTERM reached the shell"
    from deepagents.backends import local_shell

    assert "start_new_session" in inspect.getsource(local_shell.LocalShellBackend.execute)


def waits_for_pipe(ws: Path) -> None:
    marker = f"sleep 4{os.getpid() % 1000:03d}"
    with survivors(marker) as left:
        started = time.monotonic()
        answer = ok(call(ws, "execute", command=f"{marker} & echo done", timeout=2))
        waited = time.monotonic() - started
    assert answer.text.startswith("Error: Command timed out after 2 seconds"), answer.text
    assert waited >= 2 and left, "the call waited for the job's stdout, and the job lives on"


def universal_newlines(ws: Path) -> None:
    assert ok(call(ws, "execute", command="printf 'a\\tb\\r\\nc\\n'")).text.startswith("a\tb\nc\n")


def sh_not_bash(ws: Path) -> None:
    assert ok(call(ws, "execute", command="echo $0")).text.startswith("/bin/sh\n")
    assert ok(call(ws, "execute", command="echo {1..3}")).text.startswith("{1..3}\n")
    assert ok(call(ws, "execute", command='echo "[$BASH_VERSION]"')).text.startswith("[]\n")
    if os.path.basename(os.path.realpath("/bin/sh")) == "dash":
        assert ok(call(ws, "execute", command="printf '\\x41\\n'")).text.startswith("\\x41\n")
    assert ok(call(ws, "execute", command="printf 'a\\033[31mb\\007\\n'")).text.startswith(
        "a\x1b[31mb\x07\n"
    )
    answer = ok(call(ws, "execute", command="printf 'a\\377b\\n'"))
    assert answer.text.startswith("Error executing command (UnicodeDecodeError)"), answer.text


def stdout_then_stderr(ws: Path) -> None:
    text = ok(call(ws, "execute", command="echo out1; echo err1 >&2; echo out2")).text
    assert text.startswith("out1\nout2\n\n[stderr] err1")


def capture_in_memory(ws: Path) -> None:
    size = 24 << 20
    peak = peak_allocation(
        lambda: call(ws, "execute", command=f"head -c {size} /dev/zero | tr '\\0' x")
    )
    assert peak > size


def head_only_cut(ws: Path) -> None:
    answer = ok(call(ws, "execute", command="seq 1 100000"))
    assert answer.text.startswith("1\n2\n3\n") and "\n100000\n" not in answer.text
    assert "... Output truncated at 100000 bytes." in answer.text
    assert answer.artifact == {"truncated": True, "exit_code": 0}, "no output file"
    assert not RERUN_ADVICE.search(answer.text), "no advice against re-running"


def no_abort(ws: Path) -> None:
    from deepagents.backends import LocalShellBackend

    assert list(inspect.signature(LocalShellBackend.execute).parameters) == [
        "self",
        "command",
        "timeout",
    ]
    assert call_schema("execute") == {"command", "timeout"}


# --- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    name: str
    entries: tuple[str, ...]
    demo: Callable[[Path], None]
    needs_ripgrep: bool = False


DEVIATIONS = [
    Deviation(
        "lax int offset", ("test_read.py::test_bad_arguments_are_errors[offset-bool]",), lax_offset
    ),
    Deviation(
        "limit below one reads nothing",
        ("test_read.py::test_limit_below_one_is_an_error",),
        nonpositive_limit,
    ),
    Deviation("binary shown", ("READ-BIN-02",), binary_shown),
    Deviation("BMP not named", ("READ-IMG-05",), bmp_not_named),
    Deviation(
        "video shown without its extension",
        (
            "test_read_formats.py::test_video_without_support_says_so[unnamed-mp4]",
            "test_read_formats.py::test_video_without_support_says_so[unnamed-webm]",
        ),
        video_shown_without_extension,
    ),
    Deviation("BOM shown", ("READ-BOM-01", "test_read.py::test_empty_file[bom-only]"), bom_shown),
    Deviation(
        "default limit is no cap",
        ("test_read_paging.py::test_limit_above_the_cap_is_capped",),
        default_limit_not_a_cap,
    ),
    Deviation(
        "long line without continuation",
        (
            "test_read_paging.py::test_a_line_over_the_size_cap_is_still_shown",
            "test_read_paging.py::test_line_cap_cuts_long_line",
        ),
        long_line_without_continuation,
    ),
    Deviation(
        "devices not found",
        ("READ-DEV-02", "test_read.py::test_empty_page_text_is_not_blank[/dev/null]"),
        devices_not_found,
    ),
    Deviation("read decodes UTF-8 only", ("READ-ENC-01", "READ-ENC-02"), utf8_only_read),
    Deviation(
        "images by file name", ("test_read_formats.py::test_image_by_magic_bytes",), image_by_name
    ),
    Deviation(
        "CR of CRLF dropped",
        (
            "test_read.py::test_crlf_lines",
            "test_read.py::test_mixed_endings",
            "test_read.py::test_mostly_whitespace_is_text",
        ),
        crlf_dropped,
    ),
    Deviation(
        "splitlines",
        (
            "test_read.py::test_lone_cr_is_not_a_line_break",
            "test_read.py::test_occasional_control_characters_are_text",
        ),
        splitlines,
    ),
    Deviation("paging loses the file", ("READ-PAGE-01",), paging_loses_the_file),
    Deviation(
        "blank file reads empty",
        ("test_write_properties.py::test_write_then_read",),
        blank_file_reads_empty,
    ),
    Deviation("whole file in memory", ("READ-STREAM-02",), whole_file_in_memory),
    Deviation(
        "O_NOFOLLOW",
        (
            "test_read.py::test_read_through_symlink",
            "test_edit.py::test_edit_through_symlink",
            "WRITE-SYM-01",
        ),
        no_follow,
    ),
    Deviation(
        "'..' refused",
        ("test_edit.py::test_observation_path_of_a_spelled_path", "WRITE-PATH-01"),
        dotdot_refused,
    ),
    Deviation("aliases refused", ("EDIT-QUEUE-01", "WRITE-QUEUE-01"), aliases_refused),
    Deviation(
        "lax bool replace_all",
        (
            "test_edit.py::test_bad_arguments[replace-all-str]",
            "test_edit_text.py::test_argument_errors_name_the_argument[replace-all-str]",
        ),
        lax_replace_all,
    ),
    Deviation("binary edited", ("EDIT-BIN-01",), edit_binary),
    Deviation("edit decodes UTF-8 only", ("EDIT-ENC-02",), edit_utf8_only),
    Deviation(
        "line endings become LF",
        (
            "EDIT-EOL-01",
            "EDIT-EOL-02",
            "EDIT-EOL-03",
            "test_edit.py::test_bom_and_crlf",
            "test_edit.py::test_observation[crlf]",
            "test_edit.py::test_replace_all_keeps_bom_and_endings[bom-crlf]",
            "test_edit.py::test_replace_all_keeps_bom_and_endings[mixed]",
            "test_edit.py::test_replace_all_keeps_bom_and_endings[bom-crlf-multiline-old]",
            "test_edit.py::test_replace_all_keeps_bom_and_endings[crlf-multiline-old]",
            "test_edit.py::test_replace_all_keeps_bom_and_endings[lone-cr]",
            "test_edit_properties.py::test_replace_all_keeps_bom_and_endings_for_any_text",
            "test_edit_properties.py::test_only_the_span_changes",
        ),
        endings_become_lf,
    ),
    Deviation("no-op edit", ("EDIT-NOCHANGE-02",), no_op_edit),
    Deviation(
        "ambiguity without lines",
        (
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[three]",
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[four]",
            "test_edit_text.py::test_ambiguity_gives_count_and_lines[multi-line]",
        ),
        ambiguity_without_lines,
    ),
    Deviation(
        "not found text",
        ("test_edit_text.py::test_not_found_names_the_file", "EDIT-PRES-06"),
        not_found_text,
    ),
    Deviation(
        "argv raises",
        (
            "ROBUST-ARGS-02",
            "WRITE-ARG-02",
            *(
                f"test_grep_limits.py::test_hostile_input_answered_cleanly[{case}]"
                for case in (
                    "pattern-nul",
                    "pattern-surrogate",
                    "pattern-lone-low-surrogate",
                    "pattern-128KiB",
                    "glob-nul",
                    "glob-surrogate",
                    "glob-128KiB",
                )
            ),
        ),
        argv_raises,
        needs_ripgrep=True,
    ),
    Deviation(
        "huge strings",
        (
            "ROBUST-ARGS-04",
            "test_glob_limits.py::test_hostile_input_answered_cleanly[path-128KiB]",
            "test_read.py::test_hostile_paths[5000-chars]",
            "test_read.py::test_hostile_paths[300-char-component]",
        ),
        huge_strings,
        needs_ripgrep=True,
    ),
    Deviation(
        "fuzz reaches raw errors", ("ROBUST-FUZZ-01",), fuzz_reaches_raw_errors, needs_ripgrep=True
    ),
    Deviation(
        "in-place write", ("WRITE-ATOMIC-01", "WRITE-CANCEL-01", "WRITE-QUEUE-02"), in_place_write
    ),
    Deviation("surrogate truncates", ("WRITE-SURR-01",), surrogate_truncates),
    Deviation(
        "written as given",
        (
            "test_write.py::test_bom_kept_once[plain]",
            "test_write.py::test_bom_crlf_file_keeps_both",
            "test_write_properties.py::test_line_endings_for_any_text",
            "test_write_properties.py::test_bytes_on_disk[utf8-bom]",
            "WRITE-ENC-01",
            "test_write_properties.py::test_bytes_on_disk[utf16le]",
        ),
        written_as_given,
    ),
    Deviation(
        "fixed text only",
        ("GREP-REGEX-01", "test_grep_text.py::test_error_names_the_argument[invalid-regex]"),
        fixed_text_only,
        needs_ripgrep=True,
    ),
    Deviation(
        "arguments it does not have are dropped",
        (
            "GREP-CASE-01",
            "test_grep.py::test_bad_arguments[offset]",
            "test_grep.py::test_bad_arguments[offset-str]",
            "test_grep.py::test_bad_arguments[limit]",
            "test_grep.py::test_bad_arguments[ignore-case-str]",
            "test_grep.py::test_bad_literal",
            "test_grep_text.py::test_error_names_the_argument[offset]",
            "test_grep_text.py::test_error_names_the_argument[limit]",
            "test_grep_text.py::test_error_names_the_argument[ignore-case]",
            "test_grep_text.py::test_error_names_the_argument[literal]",
            "test_glob.py::test_bad_arguments[offset]",
            "test_glob.py::test_bad_arguments[offset-str]",
            "test_glob.py::test_bad_arguments[limit]",
            "test_glob_text.py::test_error_names_the_argument[offset]",
            "test_glob_text.py::test_error_names_the_argument[limit]",
            "test_bash.py::test_bad_arguments[background-string]",
            "test_bash.py::test_refusal_names_the_argument[background-string]",
            "test_bash.py::test_bad_arguments[unknown]",
            "test_bash.py::test_refusal_names_the_argument[unknown]",
            "BASH-BG-07",
        ),
        dropped_arguments,
        needs_ripgrep=True,
    ),
    Deviation("count of lines", ("GREP-MODE-03",), count_lines, needs_ripgrep=True),
    Deviation(
        "no paging",
        (
            "GREP-CAP-01",
            "test_grep_paging.py::test_paging_thousands_of_files",
            "test_grep_text.py::test_cut_names_the_offset_to_continue",
            "GLOB-CAP-01",
            "test_glob_limits.py::test_paging_thousands",
            "GLOB-PRES-02",
        ),
        no_paging,
        needs_ripgrep=True,
    ),
    Deviation(
        "files by path",
        (
            "test_grep_paging.py::test_files_mode_newest_first",
            "test_grep_paging.py::test_paging_files_exactly_once",
        ),
        path_order,
        needs_ripgrep=True,
    ),
    Deviation(
        "empty pattern",
        (
            "test_grep.py::test_bad_arguments[empty]",
            "test_grep_text.py::test_error_names_the_argument[pattern-empty]",
            "test_glob.py::test_bad_arguments[empty]",
            "test_glob_text.py::test_error_names_the_argument[pattern-empty]",
        ),
        empty_pattern,
        needs_ripgrep=True,
    ),
    Deviation(
        "missing path is a success",
        (
            "test_grep.py::test_missing_path",
            "test_grep_text.py::test_error_names_the_path",
            "test_glob.py::test_missing_file_and_loop_paths[nope]",
            "test_glob.py::test_missing_file_and_loop_paths[nope/deeper]",
            "test_glob.py::test_missing_file_and_loop_paths[a.txt]",
            "test_glob_text.py::test_error_names_the_path",
        ),
        missing_path_success,
        needs_ripgrep=True,
    ),
    Deviation(
        "one glob string", ("test_grep.py::test_glob_list_and_file_path",), glob_list_refused
    ),
    Deviation(
        "no sensitive-file exclusion",
        (
            "GREP-SENS-01",
            "GREP-SENS-02",
            "GREP-SENS-04",
            "GLOB-SENS-03",
            "test_glob_filters.py::test_no_pattern_ever_lists_a_secret",
            *(
                f"test_glob_filters.py::test_secrets_never_listed[{p}]"
                for p in (
                    "**/*.pem",
                    "**/.env*",
                    "**/id_*",
                    "**",
                    ".env",
                    ".git/**",
                    ".ssh/*",
                    "config/**",
                )
            ),
        ),
        no_secret_exclusion,
        needs_ripgrep=True,
    ),
    Deviation(
        "ripgrep flags",
        ("GREP-HIDDEN-01", "GREP-CONFIG-01", "GREP-SIZE-01"),
        ripgrep_flags,
        needs_ripgrep=True,
    ),
    Deviation("long matching line", ("GREP-LINE-01",), long_matching_line, needs_ripgrep=True),
    Deviation("non-UTF-8 name", ("GREP-PATH-03",), non_utf8_name, needs_ripgrep=True),
    Deviation(
        "glob dotfiles",
        (
            "test_glob.py::test_declared_dialect[*]",
            "test_glob.py::test_declared_dialect[**]",
            "test_glob.py::test_declared_dialect[**/*.toml]",
            "test_glob.py::test_declared_dialect[src/deep/]",
        ),
        glob_dotfiles,
    ),
    Deviation("glob ./", ("test_glob.py::test_shared_pattern_semantics[./*.py]",), glob_dot_slash),
    Deviation("glob repr names", ("GLOB-NAME-01",), glob_repr_names),
    Deviation(
        "execute is always a success",
        (
            "BASH-EXIT-05",
            "BASH-EXIT-06",
            "test_bash.py::test_text_gives_exit_code",
            "test_bash.py::test_text_names_signal",
            "test_bash.py::test_timeout_keeps_output",
            "BASH-CWD-02",
            "test_bash.py::test_missing_directory_is_named",
            "test_bash.py::test_bad_arguments[empty]",
            "test_bash.py::test_refusal_names_the_argument[empty]",
            "test_bash.py::test_bad_arguments[blank]",
            "test_bash.py::test_refusal_names_the_argument[blank]",
        ),
        always_success,
    ),
    Deviation("integer timeout", ("test_bash.py::test_text_gives_timeout",), integer_timeout),
    Deviation(
        "only the shell is killed",
        (
            "BASH-KILL-01",
            "BASH-KILL-02",
            "BASH-KILL-03",
            "BASH-KILL-04",
            "BASH-KILL-05",
            "test_bash.py::test_command_without_timeout_is_bounded",
            "BASH-SHUT-03",
            "BASH-SHUT-04",
            "BASH-SHUT-05",
        ),
        shell_only_killed,
    ),
    Deviation("waits for the job's pipe", ("BASH-KEEP-01",), waits_for_pipe),
    Deviation(
        "universal newlines",
        ("test_bash.py::test_success_exact_output[a\\tb\\r\\nc]",),
        universal_newlines,
    ),
    Deviation(
        "sh, not bash",
        (
            "BASH-OUT-04",
            "test_bash_shell.py::test_bash_syntax_runs",
            "test_bash_shell.py::test_bash_version_is_set",
        ),
        sh_not_bash,
    ),
    Deviation("stdout, then stderr", ("BASH-PROC-04",), stdout_then_stderr),
    Deviation("output held in memory", ("BASH-OUT-03",), capture_in_memory),
    Deviation(
        "the cut keeps the head",
        ("BASH-OUT-06", "BASH-OUT-07", "BASH-OUT-08", "BASH-PRES-03", "BASH-PRES-06"),
        head_only_cut,
    ),
    Deviation("no abort", ("BASH-ABORT-02",), no_abort),
]


def test_every_entry_is_shown_by_exactly_one_deviation() -> None:
    assert_each_entry_shown_once(
        ADAPTER / "expectations.toml", ((d.name, d.entries) for d in DEVIATIONS), "deepagents"
    )


@pytest.mark.parametrize("deviation", DEVIATIONS, ids=lambda d: d.name)
def test_deviation_shown_by_calling_deepagents(
    deviation: Deviation, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    need_deepagents()
    if deviation.needs_ripgrep:
        request.getfixturevalue("rg_on_path")
    ws = tmp_path / "ws"
    ws.mkdir()
    deviation.demo(ws)
