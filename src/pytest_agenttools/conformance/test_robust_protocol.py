"""Robustness of the stdio protocol layer: raw lines a correct client never sends.

These clauses name the stdio transport (in process there is no wire): they use the stdio
adapter's ``send_raw`` to write bytes exactly as given and read what comes back. Requests here
use string ids; the harness numbers its own with integers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest
from hypothesis import given, settings

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.exception_text import find_exception_text
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.run.session import get_session

if TYPE_CHECKING:
    from pytest_agenttools.connect.stdio import StdioAdapter

from pytest_agenttools.conformance.robust_strategies import (
    ANSWER_DEADLINE,
    Budget,
    Ledger,
    Liveness,
    hostile_line,
    seed_workspace,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.conformance.test_robust import still_serving

PARSE, INVALID, NO_METHOD, PARAMS, INTERNAL = -32700, -32600, -32601, -32602, -32603
PROTOCOL_CODES = (PARSE, INVALID, NO_METHOD, PARAMS)
UNKNOWN_METHOD = "agenttools/no-such-method"


def wire(tools: ToolClient) -> StdioAdapter:
    """The adapter's raw line channel: these clauses run over the stdio transport only."""
    return cast("StdioAdapter", tools.adapter)


def line(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=True).encode() + b"\n"


def request(ident: Any, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return line(message)


def answer_problem(answer: Any, ids: tuple[Any, ...] | None, codes: tuple[int, ...]) -> str | None:
    """What is wrong with the shape, id or code of one answer (``ids``: the ids it may carry,
    None for any)."""
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0":
        return f"not a JSON-RPC 2.0 answer: {answer!r:.200}"
    if ids is not None and answer.get("id") not in ids:
        return f"answered with id {answer.get('id')!r:.60}, expected one of {ids!r:.60}"
    error = answer.get("error")
    if error is None:
        return None if "result" in answer else "an answer with neither result nor error"
    if not isinstance(error, dict) or type(error.get("code")) is not int:
        return f"a malformed error object: {error!r:.200}"
    if error["code"] not in codes:
        return f"error code {error['code']}, expected one of {codes}: {error.get('message')!r:.200}"
    return None


def exception_problem(answer: Any) -> str | None:
    """Exception text in an error message, or in the error result a raw ``call`` got."""
    if not isinstance(answer, dict):
        return None
    error, result = answer.get("error"), answer.get("result")
    if isinstance(error, dict):
        text = str(error.get("message", ""))
    elif isinstance(result, dict) and result.get("isError"):
        content = result.get("content")
        blocks = content if isinstance(content, list) else []
        text = "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
    else:
        return None
    return find_exception_text(text)


def exchange(
    tools: ToolClient, data: Any, ids: tuple[Any, ...] | None, codes: tuple[int, ...]
) -> list[str]:
    """Send one raw line that must get one answer; the problems with what came back."""
    liveness = Liveness(tools.adapter)
    answers = wire(tools).send_raw(data, timeout=ANSWER_DEADLINE)
    shown = repr(data[:80]) if isinstance(data, bytes) else "a long line"
    problems = []
    if not answers:
        problems.append(f"no answer within {ANSWER_DEADLINE:g} s to {shown}")
    else:
        problem = answer_problem(answers[0], ids, codes)
        found = exception_problem(answers[0])
        problems += [f"{p} <- {shown}" for p in (problem, found and f"exception text {found}") if p]
        if len(answers) > 1:
            problems.append(f"{len(answers)} answers to one line: {answers[1:]!r:.300} <- {shown}")
    lost = liveness.lost()
    if lost:
        problems.append(f"{lost} <- {shown}")
    return problems


def no_stray_answers(tools: ToolClient, before: bytes = b"") -> list[str]:
    """``before`` (lines that must get no answer) and a request after them, in one exchange:
    the request is answered first and nothing else comes back. One exchange, so an answer to
    ``before`` is seen whenever it arrives, not only when the scheduler lets the server answer
    after the kit started listening."""
    answers = wire(tools).send_raw(
        before + request("sync", UNKNOWN_METHOD), timeout=ANSWER_DEADLINE
    )
    extra = answers[1:] + wire(tools).send_raw(b"", timeout=0.3)
    if not answers or answers[0].get("id") != "sync":
        return [f"an answer nobody asked for: {answers[:1]!r:.300}"]
    return [f"an answer nobody asked for: {extra!r:.300}"] if extra else []


def finish(tools: ToolClient, problems: list[str]) -> None:
    ledger = Ledger()
    still_serving(tools, ledger, Liveness(tools.adapter))
    found = problems + ledger.problems()
    assert not found, "\n".join(found)


NULL = (None,)
#: an object whose id can be read may be answered with it (JSON-RPC 2.0, section 5.1)
NULL_OR_X = (None, "x")
MALFORMED: list[tuple[bytes, tuple[int, ...], tuple[Any, ...]]] = [
    (b"\xff\xfe\n", (PARSE,), NULL),
    (b"\xc3\x28 not utf-8\n", (PARSE,), NULL),
    (b'{"jsonrpc":"2.0","id":"x","method":\n', (PARSE,), NULL),
    (b"{nope\n", (PARSE,), NULL),
    (b"nul\0\n", (PARSE,), NULL),
    (b'{"jsonrpc":"2.0","id":NaN,"method":"initialize"}\n', (PARSE, INVALID), NULL),
    (b"NaN\n", (PARSE, INVALID), NULL),
    (b"[" * 100_000 + b"]" * 100_000 + b"\n", (PARSE, INVALID), NULL),
    (b"[]\n", (INVALID,), NULL),
    (b'"call"\n', (INVALID,), NULL),
    (b"42\n", (INVALID,), NULL),
    (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}\n', (PARSE, INVALID), NULL),
    (b'{"id":"x","method":"initialize"}\n', (INVALID,), NULL_OR_X),
    (b'{"jsonrpc":"2.0","id":"x"}\n', (INVALID,), NULL_OR_X),
    (b'{"jsonrpc":"1.0","id":"x","method":"initialize"}\n', (INVALID,), NULL_OR_X),
    # a line ends at LF only: a CR inside it is one more byte of the line (a reader that also
    # splits at CR answers twice, and every later answer arrives one request late) ...
    (b"\xb2J\r\x07\x18\n", (PARSE,), NULL),
    # ... or, in a request, JSON whitespace
    (
        b'{"jsonrpc":"2.0",\r"id":"cr",\r"method":"' + UNKNOWN_METHOD.encode() + b'"}\r\n',
        (NO_METHOD,),
        ("cr",),
    ),
]


@clause("ROBUST-LINE-01")
def test_malformed_lines(tools: ToolClient, ws: Workspace) -> None:
    problems: list[str] = []
    for data, codes, ids in MALFORMED:
        problems += exchange(tools, data, ids, codes)
    problems += no_stray_answers(tools)
    finish(tools, problems)


def _rss(pid: int | None) -> int:
    import psutil

    if pid is None:
        return 0
    try:
        root = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
    except psutil.Error:
        return 0


def _long_line(size: int) -> Iterator[bytes]:
    head = {"jsonrpc": "2.0", "id": "long", "method": UNKNOWN_METHOD, "params": {"pad": ""}}
    start, end = json.dumps(head).encode().split(b'""')
    yield start + b'"'
    chunk = b"a" * (1 << 20)
    for _ in range(size >> 20):
        yield chunk
    yield b'"' + end + b"\n"


@clause("ROBUST-LINE-02")
def test_overlong_line(pytestconfig: pytest.Config, tools: ToolClient, ws: Workspace) -> None:
    slow = get_session(pytestconfig).settings.slow
    size = (1 << 30) if slow else (256 << 20)
    liveness = Liveness(tools.adapter)
    window = scaled(30.0)
    pid = wire(tools).pid
    baseline, peak, done = _rss(pid), [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss(pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # a hang detector, not a speed limit: 30 s of a quiet machine, as long as it takes here
        answers = wire(tools).send_raw(_long_line(size), timeout=window)
    finally:
        done.set()
        watcher.join()
    problems = []
    if not answers:
        problems.append(f"no answer within {window:.0f} s to a line of {size >> 20} MiB")
    else:
        problem = answer_problem(answers[0], ("long", None), (INVALID, PARSE, NO_METHOD))
        if problem:
            problems.append(problem)
    lost = liveness.lost()
    if lost:
        problems.append(lost)
    grown = peak[0] - baseline
    if slow and grown > 512 << 20:
        problems.append(f"its memory grew by {grown >> 20} MiB while reading the line")
    finish(tools, problems)


@clause("ROBUST-ID-01")
def test_request_ids(tools: ToolClient, ws: Workspace) -> None:
    problems: list[str] = []
    for bad in ([1], {"a": 1}, 1.5, True, False):
        problems += exchange(tools, request(bad, UNKNOWN_METHOD), NULL, (INVALID,))
    for good in ("", "raw-id", "\u00e9\U0001f600", 0, -7, 2**53 - 1):
        problems += exchange(tools, request(good, UNKNOWN_METHOD), (good,), (NO_METHOD,))
    problems += no_stray_answers(tools)
    finish(tools, problems)


@clause("ROBUST-ID-02")
def test_notifications_are_never_answered(tools: ToolClient, ws: Workspace) -> None:
    cancel = "$/cancelRequest"
    lines = [
        line({"jsonrpc": "2.0", "method": cancel, "params": {"id": [1]}}),
        line({"jsonrpc": "2.0", "method": cancel, "params": {"id": {"a": None}}}),
        line({"jsonrpc": "2.0", "method": cancel, "params": {"id": "never-sent"}}),
        line({"jsonrpc": "2.0", "method": cancel, "params": {"id": 10**30}}),
        line({"jsonrpc": "2.0", "method": cancel}),
        line({"jsonrpc": "2.0", "method": cancel, "params": []}),
        line({"jsonrpc": "2.0", "method": UNKNOWN_METHOD, "params": {}}),
        b"\n",
        b" \t \n",
    ]
    liveness = Liveness(tools.adapter)
    problems = no_stray_answers(tools, before=b"".join(lines))
    lost = liveness.lost()
    if lost:
        problems.append(lost)
    finish(tools, problems)


@clause("ROBUST-PARAMS-01")
def test_malformed_call_params(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    cwd = str(ws.root)
    # a declared tool; with none declared, read (whose params must be refused just the same)
    tool = next(
        (
            t
            for t in ("read", "glob", "grep", "write", "edit", "bash")
            if tools.manifest.has_tool(t)
        ),
        "read",
    )
    arguments = {
        "read": {"path": "a.txt"},
        "glob": {"pattern": "*"},
        "grep": {"pattern": "a"},
        "write": {"path": "p.txt", "content": "x"},
        "edit": {"file_path": "a.txt", "old_string": "alpha", "new_string": "alpha!"},
        "bash": {"command": "true"},
    }[tool]
    call = {"tool": tool, "cwd": cwd, "arguments": arguments}
    cases: list[Any] = [
        "params",
        [call],
        {"cwd": cwd, "arguments": arguments},
        {**call, "tool": 5},
        {**call, "tool": None},
        {**call, "cwd": 5},
        {**call, "cwd": "relative/dir"},
        {**call, "env": 5},
        {**call, "env": ["A=1"]},
        {**call, "env": {"A": 1}},
        {**call, "env": {"A": None}},
        {**call, "env": {"A": "x\u0000y"}},
    ]
    problems: list[str] = []
    for number, params in enumerate(cases):
        ident = f"params-{number}"
        data = request(ident, "call", params)
        problems += exchange(tools, data, (ident,), (INVALID, PARAMS))
    problems += no_stray_answers(tools)
    finish(tools, problems)


@clause("ROBUST-FUZZ-02")
def test_fuzzed_lines(tools: ToolClient, ws: Workspace, record_property: Any) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    liveness = Liveness(tools.adapter)
    deadline = Budget(tools).longest

    @settings(max_examples=examples(100))
    @given(case=hostile_line(str(ws.root)))
    def fuzz(case: tuple[bytes, int, Any]) -> None:
        data, expected, ident = case
        ledger.calls += 1
        shown = repr(data[:120])
        answers = wire(tools).send_raw(data, answers=expected, timeout=deadline)
        if len(answers) < expected:
            ledger.hangs.append(f"no answer within {deadline:g} s <- {shown}")
        elif len(answers) > expected:
            ledger.other.append(f"{len(answers)} answers where {expected} were due <- {shown}")
        for answer in answers:
            ids = None if ident is None else (ident,)
            problem = answer_problem(answer, ids, PROTOCOL_CODES)
            if problem:
                ledger.other.append(f"{problem} <- {shown}")
            found = exception_problem(answer)
            if found:
                ledger.exception_texts.append(f"{found} <- {shown}")
        lost = liveness.lost()
        if lost:
            ledger.deaths.append(f"{lost} <- {shown}")

    fuzz()
    ledger.other += no_stray_answers(tools)
    still_serving(tools, ledger, liveness)
    for key, value in ledger.figures().items():
        record_property(f"robust_{key}", value)
    ledger.assert_clean()


@clause("ROBUST-EOF-01")
def test_end_of_input(tools: ToolClient, ws: Workspace) -> None:
    private = wire(tools).fresh()
    private.start()
    recorded = ws.file("pid")
    try:
        if tools.manifest.has_tool("bash"):
            command = "sleep 300 & echo $! > pid; wait"
            private.submit(tools.make_call("bash", {"command": command}))
            deadline = time.monotonic() + scaled(10)
            while not (recorded.exists() and recorded.read_text().strip()):
                assert time.monotonic() < deadline, "the command in flight never started"
                time.sleep(0.02)
        status = private.end_input(timeout=scaled(15.0))
    finally:
        private.close()
    assert status is not None, (
        f"the implementation did not exit within {scaled(15.0):.0f} s of end of input"
    )
    if recorded.exists():
        import psutil

        pid = int(recorded.read_text())
        time.sleep(scaled(0.5))
        try:
            process = psutil.Process(pid)
            running = process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            running = False
        if running:
            process.kill()
        assert not running, "a command started before end of input is still running"
