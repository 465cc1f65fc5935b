"""The reference edit's byte path (a file over ``edit.diff_max_bytes`` edited on its bytes, the
output streamed): the same bytes on disk and the same answer as the text path, on every input
it takes, and the text path's answer on every input it leaves to it."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import create, diffing, edit, fsport
from pytest_agenttools.implementations.reference.results import ToolError

#: small enough that every file here is "large": the byte path is tried on all of them
LIMITS = {"edit.diff_max_bytes": 4}
ALPHABET = ["a", "b", "\n", "é", "ab", "a\n", "\u2019", "\ufeff"]


@pytest.fixture(scope="module")
def tools() -> Any:
    return create(LIMITS)


def _both(
    tools: Any, tmp_path: Path, content: bytes, arguments: dict[str, Any]
) -> list[tuple[Any, bytes]]:
    """The answer and the bytes left, by the byte path and by the text path alone (the same
    file name in two folders, so the answers' texts and patch labels agree)."""
    outcomes = []
    for name in ("bytes", "text"):
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        target = folder / "f.txt"
        target.write_bytes(content)
        call = dict(arguments, file_path="f.txt")
        with pytest.MonkeyPatch.context() as patch:
            if name == "text":
                patch.setattr(edit, "_own_port", lambda ops: False)
            result = tools.call("edit", call, str(folder))
        text = result["content"][0]["text"].replace(str(folder), "DIR")
        details = {k: v for k, v in result["details"].items() if k != "path"}
        details.get("observation", {}).pop("path", None)
        outcomes.append(((result["isError"], text, details), target.read_bytes()))
    return outcomes


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))


@pytest.mark.parametrize("seed", range(40))
def test_byte_path_matches_text_path(tools: Any, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        text = _random_text(rng)
        head = rng.choice([b"", b"", b"\xef\xbb\xbf"])
        content = head + text.encode("utf-8")
        if rng.random() < 0.15:
            content += b"\xff"  # not UTF-8: latin-1
        old = _random_text(rng)[:4] or "a"
        if text and rng.random() < 0.6:  # a piece of the file: found, once or more
            start = rng.randrange(len(text))
            old = text[start : start + rng.randint(1, 6)]
        new = _random_text(rng)[:5]
        if rng.random() < 0.3:
            arguments: dict[str, Any] = {
                "edits": [
                    {"old_string": old, "new_string": new},
                    {"old_string": _random_text(rng)[:3] or "b", "new_string": "x"},
                ]
            }
        else:
            arguments = {"old_string": old, "new_string": new, "replace_all": rng.random() < 0.5}
        by_bytes, by_text = _both(tools, tmp_path, content, arguments)
        assert by_bytes == by_text, (content, arguments)


def test_byte_path_is_taken_and_keeps_one_copy(tmp_path: Path) -> None:
    """A large UTF-8 edit goes the byte path: its pieces are views of the file's one copy."""
    target = tmp_path / "big.txt"
    target.write_bytes(b"line\n" * 1000 + b"MARK\n" + b"tail\n" * 10)
    request = edit.parse({"file_path": str(target), "old_string": "MARK", "new_string": "X"})
    found = edit._prepare_bytes(str(target), str(target), request, edit.OPS, 4)
    assert found is not None
    assert [bytes(p) for p in found.pieces] == [b"line\n" * 1000, b"X", b"\n" + b"tail\n" * 10]
    assert isinstance(found.pieces[0], memoryview)
    assert found.answer["details"]["observation"]["first_changed_line"] == 1001


@pytest.mark.parametrize(
    ("old", "new"),
    [("ab\ncd", "ab\ncx"), ("ab", "ab\n"), ("ab\n", "ab"), ("cd", "c"), ("a", "ab\ncd")],
)
def test_first_changed_line_as_the_text_path(old: str, new: str) -> None:
    data = old.encode()
    assert edit._first_changed_line(data, 0, [new.encode()]) == diffing.first_changed_line(old, new)


def test_atomic_replace_writes_pieces_in_order_and_honours_cancel(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    data = b"0123456789"
    view = memoryview(data)
    fsport.atomic_replace(str(target), (view[:3], b"-", view[5:]), 0o640)
    assert target.read_bytes() == b"012-56789"
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ToolError):
        fsport.atomic_replace(str(target), (view[:3], b"x"), 0o640, cancel)
    assert target.read_bytes() == b"012-56789"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]  # no temp file left
