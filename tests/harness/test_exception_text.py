"""The exception-text detectors: they catch what runtimes print and pass what people write."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_agenttools.harness.exception_text import find_exception_text

RUNTIME_TEXTS = [
    'Traceback (most recent call last):\n  File "x.py", line 3, in <module>',
    '  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode',
    "Internal error in grep: OSError: Argument list too long",
    "TypeError: unhashable type: 'list'",
    "json.decoder.JSONDecodeError: Expecting value",
    "read: [Errno 36] File name too long: 'aaaa'",
    "write: embedded null byte",
    "'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed",
    "Exceeds the limit (4300 digits) for integer string conversion",
    "    at Object.<anonymous> (/srv/tools/read.js:10:5)",
    "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
    "TypeError: Cannot read properties of undefined (reading 'length')",
    "RangeError: Maximum call stack size exceeded",
    "panic: runtime error: index out of range [3] with length 3",
    "goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d",
    "thread 'main' panicked at src/main.rs:4:5",
    'Exception in thread "main" java.lang.NullPointerException',
    "java.io.IOException: Stream closed",
    "Internal error in read: KeyError: 'path'",
    "ValueError: embedded null character in path",
    "NullPointerException: path",
    "System.IO.IOException: The process cannot access the file",
    "pydantic_core._pydantic_core.ValidationError: 1 validation error",
]
PLAIN_TEXTS = [
    "Error: file not found: a.txt. Check the path with glob.",
    'read: offset must be an integer, got string "abc".',
    "No matches found",
    "grep: regex parse error: unclosed group; escape ( or set literal=true.",
    "File not found: /ws/missing.txt. Did you mean missing.md?",
    "Command exited with code 1",
    "edit: old_string was not found in a.py (the file has 12 lines).",
    "write: path contains a NUL character (at position 3); remove it.",
    "Syntax Error: unexpected token",
    "Warning: output truncated at 30000 characters.",
    # a tool's own documented prefix, not its runtime's: Claude Code's validation errors
    "<tool_use_error>InputValidationError: command is required</tool_use_error>",
    "ToolError: path must be a string",
]


@pytest.mark.parametrize("text", RUNTIME_TEXTS)
def test_runtime_text_is_found(text: str) -> None:
    assert find_exception_text(text), text


@pytest.mark.parametrize("text", PLAIN_TEXTS)
def test_plain_text_passes(text: str) -> None:
    assert find_exception_text(text) is None, find_exception_text(text)


# --- the exception-name detector finds exactly what its one-pattern form finds ---------------

#: the pieces texts are made of: runtime names, qualified names, near misses, separators
PIECES = [
    "ValueError",
    "OSError",
    "KeyboardInterrupt",
    "Warning",
    "ToolError",
    "json.decoder.JSONDecodeError",
    "java.io.IOException",
    "x.y_Error",
    "a.b",
    "x.FooError.bar",
    "_priv",
    "1abc",
    "Error",
    ".",
    "..",
    ":",
    ": ",
    " ",
    "\n",
    "\t",
    "é",
    "-",
    "(",
]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_the_name_detector_matches_its_single_pattern(text: str) -> None:
    from pytest_agenttools.harness.exception_text import DETECTORS, EXCEPTION_NAME

    (detector,) = [d for d in DETECTORS if d.what == "an exception class name"]
    reference = re.compile(EXCEPTION_NAME, re.MULTILINE).search(text)
    found = detector.search(text)
    assert (found and found.group(0)) == (reference and reference.group(0)), text
    assert (found and found.start()) == (reference and reference.start()), text
