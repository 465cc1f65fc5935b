"""Unit tests of the reference's shared pieces: codec, sniffing, paths, queue (diffs:
tests/implementations/reference/test_diffing.py)."""

from __future__ import annotations

import io
import json
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.implementations.reference import paths, sniff, textcodec
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.results import ToolError
from pytest_agenttools.implementations.reference.server import Server
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def lines(data: bytes, max_chars: int = 100, encoding: textcodec.Encoding | None = None) -> list:
    enc = encoding or textcodec.detect(data[:4100])
    return list(textcodec.iter_lines(io.BytesIO(data), enc, max_chars))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", []),
        (b"\n", [("", False)]),
        (b"a", [("a", False)]),
        (b"a\n", [("a", False)]),
        (b"a\n\n", [("a", False), ("", False)]),
        (b"a\r\nb\r\n", [("a\r", False), ("b\r", False)]),
        (b"a\rb\r", [("a\rb\r", False)]),
        (b"\xef\xbb\xbfbom\n", [("bom", False)]),
    ],
)
def test_iter_lines_splits_on_lf_only(data: bytes, expected: list) -> None:
    assert lines(data) == expected


def test_iter_lines_caps_without_holding_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textcodec, "CHUNK", 7)
    data = b"x" * 1000 + b"\nshort\n" + b"y" * 5
    assert lines(data, max_chars=10) == [("x" * 10, True), ("short", False), ("yyyyy", False)]


def test_iter_lines_multibyte_split_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textcodec, "CHUNK", 1)
    text = "é中😀\nzweite Zeile\n"
    assert lines(text.encode()) == [("é中😀", False), ("zweite Zeile", False)]


def test_iter_lines_utf16(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textcodec, "CHUNK", 3)
    data = b"\xff\xfe" + "one\ncafé\n".encode("utf-16-le")
    assert lines(data) == [("one", False), ("café", False)]


@pytest.mark.parametrize(
    ("head", "name"),
    [
        (b"\xef\xbb\xbfx", "utf-8-bom"),
        (b"\xff\xfex\x00", "utf-16le-bom"),
        (b"plain", "utf-8"),
        (b"caf\xe9", "latin-1"),
        (b"\xe4\xb8", "utf-8"),
    ],
)
def test_detect(head: bytes, name: str) -> None:
    assert textcodec.detect(head, complete=head != b"\xe4\xb8").name == name


def test_encode_never_doubles_bom() -> None:
    assert textcodec.encode("\ufeffx", textcodec.UTF8_SIG) == b"\xef\xbb\xbfx"
    assert textcodec.encode("x", textcodec.UTF16LE) == b"\xff\xfex\x00"
    assert textcodec.encode("\ufeffx", textcodec.UTF8) == "\ufeffx".encode()


@pytest.mark.parametrize(
    ("text", "ending"), [("a\r\nb\n", "\r\n"), ("a\nb\r\n", "\n"), ("a\rb", "\r"), ("abc", "\n")]
)
def test_dominant_line_ending(text: str, ending: str) -> None:
    assert textcodec.dominant_line_ending(text) == ending


@pytest.mark.parametrize(
    ("sample", "kind"),
    [
        (b"\x89PNG\r\n\x1a\nrest", "image"),
        (b"\xff\xd8\xff\xe0", "image"),
        (b"GIF87a....", "image"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8L", "image"),
        (b"text\x00more", "binary"),
        (b"\x01\x02\x03\x04abc", "binary"),
        (b"\xff\xfeh\x00i\x00", "text"),
        (b"hello\tworld\r\n", "text"),
        (b"", "text"),
    ],
)
def test_sniff(sample: bytes, kind: str) -> None:
    assert sniff.classify(sample, "file.txt").kind == kind


def test_sniff_binary_extension() -> None:
    assert sniff.classify(b"plain", "model.safetensors").kind == "binary"


def test_read_candidates_order() -> None:
    found = paths.read_candidates("@Bob's shot at 9.41 AM.png", "/ws")
    assert found[0] == "/ws/@Bob's shot at 9.41 AM.png"
    assert found[1] == "/ws/Bob's shot at 9.41 AM.png"
    assert "/ws/Bob's shot at 9.41\u202fAM.png" in found
    assert "/ws/Bob\u2019s shot at 9.41 AM.png" in found
    assert len(found) == len(set(found))


def test_read_candidates_nfd() -> None:
    found = paths.read_candidates("caf\u00e9.txt", "/ws")
    assert "/ws/" + unicodedata.normalize("NFD", "caf\u00e9.txt") in found


@pytest.mark.parametrize("raw", [None, 3, "", "   ", "a\x00b"])
def test_check_raw_rejects(raw: object) -> None:
    with pytest.raises(ToolError):
        paths.check_raw(raw)


def test_mutation_queue_serialises_one_key_and_cleans_up(tmp_path: Path) -> None:
    queue = MutationQueue()
    (tmp_path / "f").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    inside, most = [0], [0]
    guard = threading.Lock()

    def work(path: str) -> None:
        with queue.hold(path):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.01)
            with guard:
                inside[0] -= 1

    spellings = [str(tmp_path / "f"), str(tmp_path / "link"), f"{tmp_path}/./f"] * 4
    threads = [threading.Thread(target=work, args=(p,)) for p in spellings]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1, "two holders of one file's lock at once"
    assert len(queue) == 0, "idle locks must be dropped"


@pytest.mark.parametrize(
    "exc, code, named",
    [
        (MemoryError(), "out_of_memory", "ran out of memory"),
        (RuntimeError("can't start new thread"), "resource_exhausted", "could not start a thread"),
    ],
)
def test_a_resource_running_out_is_named_not_called_a_defect(
    tmp_path: Path, exc: BaseException, code: str, named: str
) -> None:
    def exhausted(arguments: Any, ctx: Any) -> Any:
        raise exc

    result = ReferenceTools(runs={"edit": exhausted}).call("edit", {}, str(tmp_path))
    message = result["content"][0]["text"]
    assert result["isError"] and result["details"]["error"] == code, result
    assert named in message and "defect" not in message and "internal error" not in message


def test_a_call_the_server_has_no_thread_for_is_answered_once_and_named() -> None:
    class Crowded:
        """A pool that queues the work and then cannot start a thread (as CPython's does)."""

        def __init__(self) -> None:
            self.queued: list[Any] = []

        def submit(self, fn: Any) -> Any:
            self.queued.append(fn)
            raise RuntimeError("can't start new thread")

    out = io.BytesIO()
    server = Server(tools=type("T", (), {"call": lambda *a: {"content": []}})(), out=out)
    crowded = server.pool = Crowded()  # type: ignore[assignment]
    line = b'{"jsonrpc":"2.0","id":5,"method":"call","params":{"tool":"read","cwd":"/"}}\n'
    assert server.handle_line(line)
    crowded.queued[0]()  # a worker that frees up later runs the queued work: no second answer
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(answers) == 1 and answers[0]["id"] == 5, answers
    assert "could not start a thread" in answers[0]["error"]["message"]
    assert 5 not in server.cancels, "the id stays usable"
