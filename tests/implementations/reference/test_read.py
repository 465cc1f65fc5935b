"""Reference read and write on pyfakefs (file logic) and on the real file system (streaming)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.fixtures.builders import make_text_file
from pytest_agenttools.implementations.reference import create, fsport, read, read_pdf
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

# Import every tool module now, outside pyfakefs: a module first imported while a fake file
# system is active keeps the fake `os` after that test ends, and the next test fails.
create()


def call(tool: str, cwd: str, **arguments: Any) -> dict[str, Any]:
    return create().call(tool, arguments, cwd)


def text(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def test_read_on_fake_fs(fs: Any) -> None:
    fs.create_file("/ws/a.txt", contents="one\ntwo\n")
    result = call("read", "/ws", path="a.txt")
    assert text(result) == "     1\u2192one\n     2\u2192two"
    assert result["details"]["total_lines"] == 2
    assert result["details"]["observation"] == {
        "kind": "text",
        "start_line": 1,
        "lines": ["one", "two"],
        "cut_lines": [],
        "truncated": False,
        "total_lines": 2,
        "encoding": "utf-8",
        "bom": False,
    }


def test_offset_beyond_end_on_fake_fs(fs: Any) -> None:
    fs.create_file("/ws/a.txt", contents="one\n")
    result = call("read", "/ws", path="a.txt", offset=5)
    assert result["isError"] and "1 lines total" in text(result)


def test_missing_file_suggests_similar_names(fs: Any) -> None:
    fs.create_file("/ws/config.yaml", contents="x")
    result = call("read", "/ws", path="config.yml")
    assert result["isError"] and "config.yaml" in text(result)


def test_variant_found_on_fake_fs(fs: Any) -> None:
    fs.create_file("/ws/Bob\u2019s.txt", contents="curly\n")
    result = call("read", "/ws", path="Bob's.txt")
    assert text(result).startswith("     1\u2192curly")
    assert result["details"]["resolved_path"] == "/ws/Bob\u2019s.txt"


def test_write_creates_and_overwrites_on_fake_fs(fs: Any) -> None:
    fs.create_dir("/ws")
    first = call("write", "/ws", path="d/n.txt", content="hi\n")
    assert not first["isError"] and first["details"]["created"] is True
    second = call("write", "/ws", path="d/n.txt", content="bye\n")
    assert second["details"]["created"] is False and "overwrote" in text(second)
    assert Path("/ws/d/n.txt").read_bytes() == b"bye\n"


def test_write_big_old_file_omits_diff(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x\n" * 600_000)
    result = call("write", str(tmp_path), path="big.txt", content="small\n")
    assert result["details"]["diff_omitted"] == "too_large"
    assert (tmp_path / "big.txt").read_bytes() == b"small\n"


def test_failed_write_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f.txt").write_text("old\n")

    def boom(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    result = call("write", str(tmp_path), path="f.txt", content="new\n")
    assert result["isError"] and "No space left" in text(result)
    assert sorted(os.listdir(tmp_path)) == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "old\n"


def test_internal_errors_become_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*_: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(read.Page, "finish", broken)
    (tmp_path / "a.txt").write_text("x\n")
    result = call("read", str(tmp_path), path="a.txt")
    assert result["isError"] and result["details"]["error"] == "internal"


def test_page_one_of_a_big_file_uses_little_memory(tmp_path: Path) -> None:
    make_text_file(tmp_path / "big.log", 128 * 1024 * 1024)
    tracemalloc.start()
    try:
        result = call("read", str(tmp_path), path="big.log")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    observation = result["details"]["observation"]
    assert not result["isError"] and observation["truncated"] is True
    assert observation["next_offset"] == len(observation["lines"]) + 1
    assert peak < 8 * 1024 * 1024, f"peak Python allocation {peak} bytes for page one"


def test_one_giant_line_uses_little_memory(tmp_path: Path) -> None:
    with open(tmp_path / "one", "wb") as handle:
        for _ in range(32):
            handle.write(b"z" * (1024 * 1024))
    tracemalloc.start()
    try:
        result = call("read", str(tmp_path), path="one")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result["details"]["observation"]["cut_lines"] == [1]
    assert peak < 8 * 1024 * 1024, f"peak Python allocation {peak} bytes"


def test_configure_ignores_unknown_and_invalid() -> None:
    tools = create()
    applied = tools.configure(
        {"read.max_lines": 5, "nope": 1, "read.max_bytes": -3, "read.max_line_chars": True}
    )
    assert applied == {"applied": {"read.max_lines": 5}}
    assert tools.manifest()["limits"]["read.max_lines"] == 5


def _context(tmp_path: Path, **limits: int) -> CallContext:
    return CallContext(cwd=str(tmp_path), limits=Limits(limits), queue=MutationQueue())


def test_size_cap_counts_in_the_declared_unit(tmp_path: Path) -> None:
    line = "\u00e9" * 9  # 9 characters, 18 bytes; with its LF: 10 chars, 19 bytes
    (tmp_path / "f.txt").write_text((line + "\n") * 20, encoding="utf-8")
    for units, shown in (({}, 5), ({"read.max_bytes": "chars"}, 10)):
        tools = ReferenceTools({"read.max_bytes": 100}, units=units)
        result = tools.call("read", {"path": "f.txt"}, str(tmp_path))
        observation = result["details"]["observation"]
        assert len(observation["lines"]) == shown, (units, observation)
        assert observation["truncated_by"] == "bytes"


def test_page_end_at_last_line_is_not_truncated(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    result = call("read", str(tmp_path), path="f.txt", limit=3)
    observation = result["details"]["observation"]
    assert observation["truncated"] is False and observation["total_lines"] == 3
    assert "next_offset" not in observation


def test_offset_walk_honours_cancel(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n" * 1000)
    ctx = _context(tmp_path)
    ctx.cancel.set()
    with pytest.raises(ToolError) as raised:
        read.run({"path": "f.txt", "offset": 900}, ctx)
    assert raised.value.code == "aborted"


def test_link_chain_follows_every_hop(tmp_path: Path) -> None:
    os.symlink("/dev/stdin", tmp_path / "in")
    os.symlink(tmp_path / "in", tmp_path / "in2")
    chain = fsport.link_chain(str(tmp_path / "in2"))
    assert chain[:3] == [str(tmp_path / "in2"), str(tmp_path / "in"), "/dev/stdin"]
    assert "/proc/self/fd/0" in chain


@pytest.mark.parametrize(
    "path", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/1/task/1/fd/0", "/dev/tty"]
)
def test_standard_streams_are_refused_by_name(path: str) -> None:
    with pytest.raises(ToolError) as raised:
        fsport.refuse_device(path)
    assert raised.value.code == "device"


def test_a_plain_file_is_checked_by_name_without_walking_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-call shortcut: a regular file is no device and leads nowhere, so its chain is
    not walked; a link beside it, or a directory link above a device, still is."""
    plain = tmp_path / "plain.txt"
    plain.write_text("x\n")
    os.symlink("/dev/zero", tmp_path / "zero")
    os.symlink("/dev", tmp_path / "devices")
    walked: list[str] = []
    real_chain = fsport.link_chain

    def chain(path: str) -> list[str]:
        walked.append(path)
        return real_chain(path)

    monkeypatch.setattr(fsport, "link_chain", chain)
    fsport.refuse_device(str(plain))
    assert walked == []
    for device in (tmp_path / "zero", tmp_path / "devices" / "stdin"):
        with pytest.raises(ToolError) as raised:
            fsport.refuse_device(str(device))
        assert raised.value.code == "device"
    assert walked == [str(tmp_path / "zero"), str(tmp_path / "devices" / "stdin")]


def test_stdin_redirected_from_dev_null_is_still_refused(tmp_path: Path) -> None:
    os.symlink("/dev/stdin", tmp_path / "in")
    saved = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        result = call("read", str(tmp_path), path="in")
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(null)
    assert result["isError"] and result["details"]["error"] == "device"


def test_dev_null_is_an_empty_file(tmp_path: Path) -> None:
    result = call("read", str(tmp_path), path="/dev/null")
    assert not result["isError"]
    assert result["details"]["observation"]["lines"] == []


@pytest.mark.parametrize("spec", ["9" * 13, "1-" + "9" * 5000, "9" * 5000])
def test_huge_page_numbers_are_refused_cleanly(spec: str) -> None:
    with pytest.raises(ToolError) as raised:
        read_pdf.parse_pages(spec, 3, 20)
    assert raised.value.code == "invalid_argument" and len(raised.value.message) < 400


def test_did_you_mean_never_suggests_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    """A name read back as surrogate escapes cannot be passed as a path: never suggested."""
    os.close(os.open(os.fsencode(tmp_path) + b"/notes\xff.txt", os.O_CREAT | os.O_WRONLY))
    (tmp_path / "notes1.txt").write_text("x\n")
    result = call("read", str(tmp_path), path="notes.txt")
    assert result["details"]["error"] == "not_found"
    assert "notes1.txt" in text(result)
    assert "\udcff" not in text(result) and "notes\ufffd" not in text(result)
    alone = tmp_path / "alone"
    alone.mkdir()
    os.close(os.open(os.fsencode(alone) + b"/data\xfe.csv", os.O_CREAT | os.O_WRONLY))
    result = call("read", str(alone), path="data.csv")
    assert "Did you mean" not in text(result), text(result)


class _WalksFromLineOne(read.ReadOps):
    """The reference's own lines, but as a port of its own: every page walks from line 1."""

    def lines(self, stream: Any, encoding: Any, max_chars: int) -> Any:
        return super().lines(stream, encoding, max_chars)


PAGING_FILES = {
    "crlf": b"one\r\ntwo\r\n\r\nfour\r\n" * 40,
    "bom": b"\xef\xbb\xbf" + b"first\n\xef\xbb\xbfsecond starts with U+FEFF\nthird\n" * 30,
    "utf16": "\ufeffa\nb\r\nc\n".encode("utf-16-le") * 20,
    "latin1": b"caf\xe9\nna\xefve\n" * 50,
    "bad-utf8-late": b"ok\n" * 3000 + b"bad \xff byte\n" + b"after\n" * 10,
    "long-lines": (b"x" * 300 + b"\n" + b"short\n") * 30,
    "multibyte": ("\u00e9\u4e2d\U0001f600 line\n" * 200).encode(),
    "no-final-lf": b"a\nb\nc" * 50,
    "empty-lines": b"\n" * 500,
    # lines of 1 to 13 bytes: some page's block ends on an LF exactly at the byte cap
    "every-alignment": b"".join(b"x" * (i % 13) + b"\n" for i in range(400)) + b"last",
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(PAGING_FILES))
@pytest.mark.parametrize("limits", [{}, {"read.max_bytes": 97, "read.max_line_chars": 120}])
def test_paging_by_counted_bytes_shows_what_walking_every_line_shows(
    tmp_path: Path, name: str, limits: dict[str, int]
) -> None:
    """Every page, at every offset (and a limit), is the page the line-by-line walk gives:
    the skip to offset by counted newlines and remembered page ends change nothing."""
    (tmp_path / "f").write_bytes(PAGING_FILES[name])
    fast = ReferenceTools(limits)
    slow = ReferenceTools(limits, ops={"read": _WalksFromLineOne()})
    lines = PAGING_FILES[name].count(b"\n") + 2
    for offset in [*range(1, min(lines, 160) + 1), lines + 5, lines * 3]:
        for arguments in ({"offset": offset}, {"offset": offset, "limit": 7}):
            arguments = {"path": "f", **arguments}
            got = fast.call("read", arguments, str(tmp_path))
            want = slow.call("read", arguments, str(tmp_path))
            assert got == want, (name, arguments)
    offset, pages = 1, 0
    while True:  # page through as a model does: each page after the one before
        got = fast.call("read", {"path": "f", "offset": offset}, str(tmp_path))
        assert got == slow.call("read", {"path": "f", "offset": offset}, str(tmp_path))
        pages += 1
        if not got["details"].get("has_more"):
            break
        offset = got["details"]["next_offset"]
    assert pages >= 1


def test_a_remembered_page_start_is_forgotten_when_the_file_changes(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("".join(f"old {n}\n" for n in range(1, 5001)))
    tools = create()
    first = tools.call("read", {"path": "f.txt", "offset": 4000, "limit": 1}, str(tmp_path))
    assert first["details"]["observation"]["lines"] == ["old 4000"]
    target.write_text("".join(f"new{n}\n" for n in range(1, 5001)))  # other line lengths
    again = tools.call("read", {"path": "f.txt", "offset": 4000, "limit": 1}, str(tmp_path))
    assert again["details"]["observation"]["lines"] == ["new4000"]


def test_paging_looks_through_a_port_that_only_delegates() -> None:
    """Confinement wraps read's port in one that delegates by ``__getattr__``: the fast skip to
    an offset must still see the reference's own ``lines`` behind it, and a port with its own
    ``lines`` (a broken copy's) must still walk from line 1."""
    from pytest_agenttools.implementations.reference import read as read_module

    class Delegate:
        def __init__(self, base: object) -> None:
            self.base = base

        def __getattr__(self, name: str) -> object:
            return getattr(self.base, name)

    class OwnLines(read_module.ReadOps):
        def lines(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
            return super().lines(*args, **kwargs)  # type: ignore[arg-type]

    assert read_module._walks_lines_as_reference(read_module.ReadOps())
    assert read_module._walks_lines_as_reference(Delegate(read_module.ReadOps()))
    assert not read_module._walks_lines_as_reference(OwnLines())
    assert not read_module._walks_lines_as_reference(Delegate(OwnLines()))


@settings(max_examples=150, deadline=None)
@given(
    start=st.one_of(st.integers(1, 3000), st.integers(1, 10**9)),
    lines=st.lists(st.text(st.characters(blacklist_characters="\n"), max_size=5), max_size=2100),
)
def test_numbered_page_is_each_line_numbered_and_joined(start: int, lines: list[str]) -> None:
    """The columned join of a page (every thousand boundary, the first line, the arrow) is
    line by line what READ-LN-01 says each line is."""
    expected = "\n".join(read.number_line(n, line) for n, line in enumerate(lines, start))
    assert read.number_lines(start, lines) == expected
