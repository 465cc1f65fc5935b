"""Recognise an implementation's exception text in what a model or a client would read.

A tool that fails must say what went wrong in words a model can act on; a stack trace, an
exception class name or a runtime's own message (``embedded null byte``) says only that the
implementation broke. The detectors cover the runtimes tools are written in: Python, Node.js,
Go, Rust, Java and .NET. They look for the shapes those runtimes print, not for words a clear
message would use: ``Error: file not found`` passes, ``TypeError: ...`` does not.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    runtime: str
    what: str
    pattern: re.Pattern[str]
    #: a further check of each match (the pattern finds candidates, this keeps the real ones)
    accept: Callable[[re.Match[str]], bool] | None = None

    def search(self, text: str) -> re.Match[str] | None:
        if self.accept is None:
            return self.pattern.search(text)
        return next((m for m in self.pattern.finditer(text) if self.accept(m)), None)


def _d(runtime: str, what: str, pattern: str) -> Detector:
    return Detector(runtime, what, re.compile(pattern, re.MULTILINE))


#: the exception classes of the runtimes tools are written in, as their default rendering
#: prints them (``TypeError: ...``): Python's built-ins (not the plain word ``Warning``), then
#: by line the stdlib ones that most often reach an error text, JavaScript's (with Node's),
#: and the everyday ones of Java and .NET. A tool's own vocabulary is not a leak: Claude Code
#: answers a bad call with ``<tool_use_error>InputValidationError: ...``, a prefix of that
#: tool, not of its runtime.
_STDLIB_AND_OTHER_RUNTIMES = """
JSONDecodeError CalledProcessError TimeoutExpired SubprocessError UnsupportedOperation
PatternError SameFileError CancelledError InvalidStateError IncompleteReadError
LimitOverrunError TOMLDecodeError
EvalError RangeError ReferenceError SyntaxError TypeError URIError AggregateError
InternalError SystemError AbortError DOMException
NullPointerException IllegalArgumentException IllegalStateException IndexOutOfBoundsException
ArrayIndexOutOfBoundsException ClassCastException NumberFormatException
UnsupportedOperationException IOException FileNotFoundException UncheckedIOException
NoSuchFileException ArithmeticException RuntimeException StackOverflowError OutOfMemoryError
ArgumentException ArgumentNullException ArgumentOutOfRangeException InvalidOperationException
NullReferenceException FormatException UnauthorizedAccessException
DirectoryNotFoundException PathTooLongException NotSupportedException
ObjectDisposedException InvalidCastException KeyNotFoundException
"""
RUNTIME_EXCEPTIONS = frozenset(
    {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException) and name != "Warning"
    }
    | set(_STDLIB_AND_OTHER_RUNTIMES.split())
)

#: an exception class name as runtimes print it: a built-in one (``ValueError:``) or any
#: module-qualified one (``json.decoder.JSONDecodeError:``, ``java.io.IOException:``,
#: ``System.IO.IOException:``: a module path is the implementation's internals); a bare
#: ``Error:`` is a plain word and passes, and so does a tool's own ``SomethingError:`` prefix
EXCEPTION_NAME = (
    r"(?<![\w.])(?:"
    + "|".join(sorted(RUNTIME_EXCEPTIONS, key=lambda n: (-len(n), n)))
    + r"|(?:[A-Za-z_]\w*\.)+[A-Z][A-Za-z0-9]*(?:Error|Exception)):(?=\s|$)"
)

#: what EXCEPTION_NAME matches, found faster: any dotted name at the start of a word followed by
#: ``:``, then ``_is_exception_name`` keeps the same ones (one alternative of 200 names tried at
#: every word was 94 ms a megabyte of text; this is a few)
_NAME_CANDIDATE = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*):(?=\s|$)", re.MULTILINE)
_QUALIFIED_LAST = re.compile(r"[A-Z][A-Za-z0-9]*(?:Error|Exception)")


def _is_exception_name(found: re.Match[str]) -> bool:
    name = found.group(1)
    if "." not in name:
        return name in RUNTIME_EXCEPTIONS
    return _QUALIFIED_LAST.fullmatch(name.rpartition(".")[2]) is not None


DETECTORS: tuple[Detector, ...] = (
    _d("python", "a traceback", r"Traceback \(most recent call last\)"),
    _d("python", "a stack frame", r'File "[^"\n]+", line \d+'),
    Detector("any", "an exception class name", _NAME_CANDIDATE, _is_exception_name),
    _d("python", "an OSError rendering", r"\[Errno -?\d+\]"),
    _d(
        "python",
        "a runtime message",
        r"embedded null (?:byte|character)|surrogates not allowed|codec can't (?:en|de)code"
        r"|unhashable type|object is not subscriptable|object has no attribute"
        r"|takes \d+ positional arguments? but|maximum recursion depth exceeded"
        r"|Exceeds the limit \(\d+ digits?\)|int too large to convert|NoneType",
    ),
    _d("node", "a stack frame", r"^\s+at (?:[\w$.<>\[\] ]+ \()?(?:node:|file://|/)[^\s)]*:\d+:\d+"),
    _d("node", "a stack frame", r"at Object\.<anonymous>|node:internal/"),
    _d("node", "an unhandled rejection", r"UnhandledPromiseRejection|ERR_[A-Z_]{4,}\b"),
    _d("node", "a runtime message", r"Cannot read propert(?:y|ies) of (?:undefined|null)"),
    _d("go", "a goroutine dump", r"goroutine \d+ \[[a-z ]+\]"),
    _d("go", "a panic", r"^panic: |runtime error: |\.go:\d+ \+0x[0-9a-f]+"),
    _d("rust", "a panic", r"thread '[^'\n]*' panicked at|RUST_BACKTRACE"),
    _d("java", "a stack frame", r"Exception in thread \"|^\s+at [\w$.]+\([\w$]+\.java:\d+\)"),
    _d(".net", "a stack frame", r"^\s+at [\w.`<>]+\(.*\) in .+:line \d+"),
)


def find_exception_text(text: str) -> str | None:
    """A description of the first exception text in ``text`` (runtime, kind, the match), or
    None when the text reads like a message written for a person."""
    for detector in DETECTORS:
        found = detector.search(text)
        if found:
            shown = found.group(0).strip()[:80]
            return f"{detector.what} ({detector.runtime}): {shown!r}"
    return None
