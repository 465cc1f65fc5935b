"""What the robustness clauses send, and how they judge each answer.

The canonical arguments of every tool with their JSON types (``ARGUMENTS``), hostile values
(wrong types, NUL, lone surrogates, megabyte strings, numbers far beyond any sane value, deep
nesting), hypothesis strategies that mix them into calls and into raw protocol lines, and the
``Ledger`` that judges every answer: within the deadline, a result (or the documented JSON-RPC
error), no runtime exception text, and the implementation still the same live process.

Values are chosen so that a fuzzed call can never reach outside its workspace: every path is a
single relative name starting with ``f`` (or one of a few fixed hostile forms), every command is
``: 'quoted text'`` (a no-op, whatever the text holds).
"""

from __future__ import annotations

import functools
import json
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from hypothesis import strategies as st

from pytest_agenttools import AdapterError, ProtocolError, ToolCall, ToolClient, ToolResult
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.exception_text import find_exception_text

#: every hostile call must be answered within this many seconds
ANSWER_DEADLINE = 10.0
#: an extreme but valid call (huge context, pathological diff) within this many seconds
EXTREME_DEADLINE = 10.0
#: a cancelled call answers within this many seconds of the cancel
CANCEL_DEADLINE = 5.0
MEGABYTE = 1024 * 1024

#: canonical arguments and the JSON types each accepts
ARGUMENTS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "read": {
        "path": ("string",),
        "offset": ("integer",),
        "limit": ("integer",),
        "pages": ("string", "integer"),
    },
    "write": {"path": ("string",), "content": ("string",)},
    "edit": {
        "file_path": ("string",),
        "old_string": ("string",),
        "new_string": ("string",),
        "replace_all": ("boolean",),
        "edits": ("array",),
    },
    "grep": {
        "pattern": ("string",),
        "path": ("string",),
        "glob": ("string", "array"),
        "output_mode": ("string",),
        "literal": ("boolean",),
        "ignore_case": ("boolean",),
        "context": ("integer",),
        "offset": ("integer",),
        "limit": ("integer",),
    },
    "glob": {
        "pattern": ("string",),
        "path": ("string",),
        "include_ignored": ("boolean",),
        "sort": ("string",),
        "offset": ("integer",),
        "limit": ("integer",),
    },
    "bash": {"command": ("string",), "timeout": ("number",), "run_in_background": ("boolean",)},
    "task_output": {"task_id": ("string",), "block": ("boolean",), "timeout": ("number",)},
}
REQUIRED: Mapping[str, tuple[str, ...]] = {
    "read": ("path",),
    "write": ("path", "content"),
    "edit": ("file_path",),
    "grep": ("pattern",),
    "glob": ("pattern",),
    "bash": ("command",),
    "task_output": ("task_id",),
}
#: arguments that name a file or directory: only workspace-safe values go there
PATHS = frozenset({("read", "path"), ("write", "path"), ("edit", "file_path")}) | frozenset(
    {("grep", "path"), ("glob", "path")}
)
#: one value of each JSON type; a value of any other type than an argument's is a wrong type
SAMPLES: Mapping[str, Any] = {
    "string": "12",
    "integer": 7,
    "number": 2.5,
    "boolean": True,
    "array": ["a", 1],
    "object": {"k": "v"},
}
#: numbers far beyond any sane count, size or duration (all finite: JSON has no others)
HUGE_NUMBERS: tuple[int | float, ...] = (
    -1,
    -(2**63),
    2**53,
    2**63,
    10**12,
    10**100,
    -(10**300),
    10**400,
    1e300,
    -1e300,
    5e-324,
)
#: numbers written as strings, for arguments that take strings too (a timeout of "1e999")
NUMBER_STRINGS = ("NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" + "0" * 400)
#: the tools' own time limits, shortened where the implementation lets configure change them
SHORT_TIMEOUTS: Mapping[str, float] = {"grep.timeout_s": 5.0, "glob.timeout_s": 5.0}
WORKSPACE_FILES = {"a.txt": "alpha\nbeta\ngamma\n", "d/b.py": "print('beta')\n"}


def seed_workspace(root: Any) -> None:
    """The files every robustness call may touch."""
    for name, text in WORKSPACE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def valid_arguments(tool: str) -> dict[str, Any]:
    """A call that is correct, so one changed argument is the only fault."""
    return {
        "read": {"path": "a.txt"},
        "write": {"path": "w.txt", "content": "x\n"},
        "edit": {"file_path": "a.txt", "old_string": "gamma", "new_string": "gamma!"},
        "grep": {"pattern": "beta"},
        "glob": {"pattern": "*.txt"},
        "bash": {"command": "true"},
        "task_output": {"task_id": "no-such-task"},
    }[tool]


def wrong_types(tool: str, name: str) -> list[Any]:
    """A value of every JSON type the argument does not take (an integer is a number)."""
    accepted = set(ARGUMENTS[tool][name])
    if "number" in accepted:
        accepted.add("integer")
    return [value for kind, value in SAMPLES.items() if kind not in accepted]


#: NUL and lone surrogates: what no path, pattern or command can hold
NUL_AND_SURROGATES = ("a\0b", "\0", "a\ud800b", "\udfff")


def megabyte_strings(tool: str, name: str) -> list[str]:
    """A string of one mebibyte, safe for the argument it goes to (a command is a no-op)."""
    if name == "command":
        return [": " + shlex.quote("x" * MEGABYTE), ": " + "#" * MEGABYTE]
    return ["x" * MEGABYTE]


def deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


# --- hypothesis strategies -----------------------------------------------------------------

#: every character a UTF-8 text can hold (lone surrogates are added on purpose where wanted)
NOT_SURROGATES: Final[tuple[Literal["Cs"]]] = ("Cs",)
_TEXT = st.text(
    st.characters(blacklist_categories=NOT_SURROGATES) | st.sampled_from(["\0", "\ud800", "\udfff"])
)
_NAME = st.text(
    st.characters(blacklist_categories=NOT_SURROGATES, blacklist_characters="/\\") | st.just("\0"),
    max_size=30,
).map(lambda s: "f" + s)


@st.composite
def big_string(draw: st.DrawFn) -> str:
    size = draw(st.sampled_from([1024, 65536, MEGABYTE]))
    return draw(st.sampled_from(["x", "\u00e9", "\U0001f600", "\0"])) * size


def _json_value(depth: int = 3) -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
        | _TEXT
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
        max_leaves=8,
    )


JSON_VALUE = _json_value()
BIG_STRING = big_string()
HOSTILE_NUMBERS = (
    st.sampled_from(HUGE_NUMBERS)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
)


@functools.cache
def hostile_value(tool: str, name: str) -> st.SearchStrategy[Any]:
    """Anything a broken or hostile client could send for this argument, kept safe (built
    once per argument: building strategies on every draw is most of a fuzz run's time)."""
    if (tool, name) in PATHS:
        strings: st.SearchStrategy[Any] = (
            _NAME | st.sampled_from(["", ".", "f\0", "f\ud800"]) | BIG_STRING
        )
    elif name == "command":  # quoted after a no-op: no fuzzed text is ever run
        strings = (_TEXT | BIG_STRING).map(lambda s: ": " + shlex.quote(s))
    else:
        strings = _TEXT | BIG_STRING
    return st.one_of(
        strings,
        HOSTILE_NUMBERS,
        st.sampled_from([v for v in SAMPLES.values() if not isinstance(v, str)]),
        st.integers(min_value=1, max_value=300).map(deep),
        JSON_VALUE.filter(lambda v: not isinstance(v, str)),
    )


@st.composite
def hostile_call(draw: st.DrawFn, tools: list[str]) -> tuple[str, Any]:
    """A tool and its arguments with one to three things wrong."""
    tool = draw(st.sampled_from(sorted(tools)))
    if draw(st.integers(0, 19)) == 0:
        return tool, draw(st.sampled_from([[], "path", 5, True, None, [{"path": "a.txt"}]]))
    arguments = dict(valid_arguments(tool))
    names = sorted(ARGUMENTS[tool])
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["set", "set", "set", "drop", "unknown"]))
        name = draw(st.sampled_from(names))
        if action == "set":
            arguments[name] = draw(hostile_value(tool, name))
        elif action == "drop":
            arguments.pop(name, None)
        else:
            key = draw(_TEXT | st.just("x" * 10_000))
            if key not in ARGUMENTS[tool]:
                arguments[key] = draw(JSON_VALUE)
    return tool, arguments


def _line(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=True, allow_nan=False).encode() + b"\n"


def _maybe_blank(raw: bytes) -> bool:
    """A line some correct reader takes as blank: nothing but whitespace by any common rule
    (ASCII's, Unicode's, JavaScript's ``trim``, which also drops a BOM). Whether such a line is
    ignored or answered as not JSON is the implementation's choice, so the fuzzer never sends one
    and expects an answer."""
    text = raw.decode("utf-8", "replace").replace("\ufeff", "")
    return not raw.strip() or not text.strip()


@st.composite
def hostile_line(draw: st.DrawFn, cwd: str) -> tuple[bytes, int, str | None]:
    """A raw protocol line, how many answers it must get (0 for a notification) and the id
    the answer must carry (None: not known, null for a line that is not a request).

    Requests use string ids (the harness numbers its own with integers).
    """
    kind = draw(st.sampled_from(["bytes", "text", "request", "request", "notification"]))
    if kind == "bytes":
        raw = draw(st.binary(min_size=1, max_size=200)).replace(b"\n", b" ")
        if _maybe_blank(raw):
            return b" \n", 0, None
        try:
            json.loads(raw)
        except ValueError:
            return raw + b"\n", 1, None
        return b"{\n", 1, None
    if kind == "text":
        text = draw(st.sampled_from(['{"jsonrpc":"2.0"', "[", "NaN", '{"id":', "}{", "nul\0"]))
        return text.encode() + b"\n", 1, None
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    method = draw(
        st.sampled_from(["call", "call", "call", "configure", "initialize", "nosuch", "$/x"])
        | _TEXT
    )
    message["method"] = method
    params: Any
    if method == "call":  # arguments from hostile_call: safe by construction
        tool, arguments = draw(hostile_call(sorted(ARGUMENTS)))
        params = {"tool": tool, "cwd": cwd, "arguments": arguments}
        if draw(st.integers(0, 4)) == 0:  # never another directory to run in
            key = draw(st.sampled_from(["tool", "cwd", "env"]))
            value = JSON_VALUE
            params[key] = draw(
                value.filter(lambda v: not isinstance(v, str)) if key == "cwd" else value
            )
    elif method == "configure":  # private names only: a real setting would outlive the test
        names = _TEXT.map(lambda s: "x-fuzz-" + s)
        params = {"settings": draw(st.dictionaries(names, HOSTILE_NUMBERS | JSON_VALUE))}
    else:
        params = draw(JSON_VALUE)
    if draw(st.integers(0, 3)):
        message["params"] = params
    if kind == "notification":
        return _line(message), 0, None
    message["id"] = ident = "fuzz-" + draw(st.text(max_size=8))
    return _line(message), 1, ident


# --- judging -------------------------------------------------------------------------------


class Budget:
    """How long each tool may take to answer a hostile call: ``ANSWER_DEADLINE``, or a tool's
    own declared time limit (``grep.timeout_s``) plus 5 s when it is longer and configure
    cannot shorten it. A pathological pattern may legitimately run until the tool's own
    limit stops it; it must not run past it."""

    def __init__(self, tools: ToolClient, base: float = ANSWER_DEADLINE) -> None:
        self.base = base
        applied = tools.configure(**SHORT_TIMEOUTS)
        self.own: dict[str, float] = {}
        for name in SHORT_TIMEOUTS:
            declared = tools.limit(name)
            value = applied.get(name, declared.value if declared is not None else 0)
            self.own[name.split(".")[0]] = float(value)

    def deadline(self, tool: str) -> float:
        return max(self.base, self.own.get(tool, 0.0) + 5.0)

    @property
    def longest(self) -> float:
        return max([self.base, *(v + 5.0 for v in self.own.values())])


@dataclass
class Ledger:
    """Every call a robustness test made and what went wrong with it, for one verdict at the
    end (a fuzz run reports all distinct problems, not only the first)."""

    calls: int = 0
    deaths: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    exception_texts: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "deaths": len(self.deaths),
            "hangs": len(self.hangs),
            "exception_texts": len(self.exception_texts),
            "other": len(self.other),
        }

    def problems(self) -> list[str]:
        return [*self.deaths, *self.hangs, *self.exception_texts, *self.other]

    def assert_clean(self) -> None:
        found = self.problems()
        if not found:
            return
        distinct: dict[str, str] = {}
        for problem in found:
            distinct.setdefault(problem.split(" <- ", 1)[0][:160], problem)
        shown = "\n".join(f"- {p[:600]}" for p in list(distinct.values())[:25])
        raise AssertionError(
            f"{len(found)} of {self.calls} calls went wrong ({self.figures()}); "
            f"{len(distinct)} distinct:\n{shown}"
        )


class Liveness:
    """Whether the implementation behind an adapter is still the same process (stdio: its
    pid and restart count; in process there is no process to lose).

    A process first started while watching (none ran when the watch began: the harness had
    retired the one before, or none was started yet) is no loss. A replacement is told apart
    from a death by the adapter's ``retired`` count: the harness replaces a process itself
    after a call overran its deadline."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.pid = getattr(adapter, "pid", None)
        self.restarts = getattr(adapter, "restarts", 0)
        self.retired = getattr(adapter, "retired", 0)

    def lost(self) -> str | None:
        pid = getattr(self.adapter, "pid", None)
        restarts = getattr(self.adapter, "restarts", 0)
        retired = getattr(self.adapter, "retired", 0)
        before = (self.pid, self.restarts, self.retired)
        self.pid, self.restarts, self.retired = pid, restarts, retired
        if (pid, restarts) == before[:2]:
            return None
        if restarts == before[1] and before[0] is None:
            return None  # started, not lost: no process ran when the watch began
        if 0 < restarts - before[1] <= retired - before[2]:
            return (
                "the harness replaced the implementation process after a call overran its "
                "deadline (the process did not die)"
            )
        started = " and a new one was started" if pid is not None else ""
        return f"the implementation process died{started}"


def describe_call(call: ToolCall) -> str:
    return call.describe()[:300]


def judge_call(
    ledger: Ledger,
    liveness: Liveness,
    adapter: Any,
    call: ToolCall,
    *,
    deadline: float = ANSWER_DEADLINE,
    protocol_codes: tuple[int, ...] = (),
    check: Callable[[ToolResult], str | None] | None = None,
) -> ToolResult | None:
    """Make one call and record what went wrong: no answer in time, a death, an exception
    text, a JSON-RPC error where a result was due (codes in ``protocol_codes`` are allowed),
    or what ``check`` says about the result."""
    ledger.calls += 1
    deadline = scaled(deadline)  # a quiet machine's bound, widened by the slowdown measured
    where = describe_call(call)
    died = hung = ""
    started = time.monotonic()
    try:
        result: ToolResult | None = adapter.call(call, deadline)
    except ProtocolError as exc:
        result = None
        text = str(exc)
        if exc.code not in protocol_codes:
            ledger.other.append(f"JSON-RPC error {exc.code} where a result was due <- {where}")
        elif find_exception_text(text):
            ledger.exception_texts.append(
                f"{find_exception_text(text)} in a JSON-RPC error <- {where}"
            )
    except AdapterError as exc:
        result = None
        text = str(exc)
        if "no answer" in text or "no result within" in text:
            hung = f"no answer within {deadline:g} s <- {where}"
        else:
            died = f"{text.splitlines()[0][:300]} <- {where}"
    elapsed = time.monotonic() - started
    if result is not None and elapsed > deadline:
        hung = f"answered after {elapsed:.1f} s <- {where}"
    if hung:
        ledger.hangs.append(hung)
    # after a hang the harness replaces the process itself: that is no death
    lost = liveness.lost()
    if died or (lost and not hung):
        ledger.deaths.append(died or f"{lost} <- {where}")
    if result is not None:
        if result.is_error:
            found = find_exception_text(result.text)
            if found:
                ledger.exception_texts.append(f"{found} <- {where}")
            elif not result.text.strip():
                ledger.other.append(f"an error result with no text <- {where}")
        problem = check(result) if check is not None else None
        if problem:
            ledger.other.append(f"{problem} <- {where}")
    return result
