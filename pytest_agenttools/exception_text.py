"""Recognise an implementation's exception text in what a model or a client would read.

A tool that fails must say what went wrong in words a model can act on; a stack trace, an
exception class name or a runtime's own message (``embedded null byte``) says only that the
implementation broke. The detectors cover the runtimes tools are written in: Python, Node.js,
Go, Rust, Java and .NET. They look for the shapes those runtimes print, not for words a clear
message would use: ``Error: file not found`` passes, ``TypeError: ...`` does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    runtime: str
    what: str
    pattern: re.Pattern[str]


def _d(runtime: str, what: str, pattern: str) -> Detector:
    return Detector(runtime, what, re.compile(pattern, re.MULTILINE))


#: an exception class name as runtimes print it: ``ValueError:``, ``json.JSONDecodeError:``,
#: ``java.io.IOException:``; a bare ``Error:`` is a plain word and passes
EXCEPTION_NAME = r"(?<![\w.])(?:[a-z_]\w*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception):(?=\s|$)"

DETECTORS: tuple[Detector, ...] = (
    _d("python", "a traceback", r"Traceback \(most recent call last\)"),
    _d("python", "a stack frame", r'File "[^"\n]+", line \d+'),
    _d("any", "an exception class name", EXCEPTION_NAME),
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
        found = detector.pattern.search(text)
        if found:
            shown = found.group(0).strip()[:80]
            return f"{detector.what} ({detector.runtime}): {shown!r}"
    return None
