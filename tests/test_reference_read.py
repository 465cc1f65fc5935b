"""Reference read and write on pyfakefs (file logic) and on the real file system (streaming)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.fixtures.builders import make_text_file
from pytest_agenttools.reference_impl import create


def call(tool: str, cwd: str, **arguments: Any) -> dict[str, Any]:
    return create().call(tool, arguments, cwd)


def text(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def test_read_on_fake_fs(fs: Any) -> None:
    fs.create_file("/ws/a.txt", contents="one\ntwo\n")
    result = call("read", "/ws", path="a.txt")
    assert text(result) == "     1\u2192one\n     2\u2192two"
    assert result["details"]["total_lines"] == 2


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
    from pytest_agenttools.reference_impl import read

    def broken(*_: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(read, "_text_page", broken)
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
    assert not result["isError"] and result["details"]["has_more"] is True
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
    assert result["details"]["line_truncations"] == [1]
    assert peak < 8 * 1024 * 1024, f"peak Python allocation {peak} bytes"


def test_configure_ignores_unknown_and_invalid() -> None:
    tools = create()
    applied = tools.configure(
        {"read.max_lines": 5, "nope": 1, "read.max_bytes": -3, "read.max_line_chars": True}
    )
    assert applied == {"applied": {"read.max_lines": 5}}
    assert tools.manifest()["limits"]["read.max_lines"] == 5
