"""From an MCP server's answer to a kit result: conversion, post-processing, observations.

An MCP server answers with text. ``agenttools/2`` judges ``details.observation``, so the mapping
builds the observation from the server's answer (that is mapping, not fixing: the mapping's
author knows the server's layout, the kit must not guess it). ``finish`` converts the
``CallToolResult``, applies the ``[tools.NAME.result]`` post-processing (``is_error`` rules, a
continuation offset, stripped headers) and runs the named builder:

- ``text_lines`` (read): the file's text as the server returned it, lines from the offset sent;
- ``written`` (write): the path, the bytes of the content sent, whether the file existed before;
- ``edited`` (edit): the path, the number of replacements, the first changed line of a diff;
- ``path_lines`` (grep, glob): one path per line (grep content: ``path:line:text``);
- ``json_fields`` (any tool): a JSON answer's fields mapped onto observation keys;
- ``structured`` (any tool): the observation the server put in ``structuredContent``
  (``agenttools serve --mcp`` carries a result's whole ``details`` there);
- ``none``: no observation (clauses that judge one then fail, saying so).

A builder never reads the workspace after the call to learn what happened: what the server did
is what the kit judges on disk. The ``written`` and ``edited`` builders look before the call
(did the file exist, how often does ``old_string`` occur for ``replace_all``), since the server's
answer cannot say it and a caller of that server would know it the same way.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from pytest_agenttools.connect.mcp.mapping import (
    IsErrorRule,
    ResultSpec,
    ToolMapping,
    parse_target,
)
from pytest_agenttools.harness.contract import ContractViolation, ToolCall, ToolResult
from pytest_agenttools.harness.observations import ALWAYS_OBSERVED

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", re.MULTILINE)
_GREP_LINE = re.compile(r"^(?P<path>.+?)(?P<sep>[:-])(?P<line>\d+)(?P=sep)(?P<text>.*)$")


# ---- conversion -----------------------------------------------------------------------------


def _block_text(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "audio":
        return (
            f"[audio {block.get('mimeType', '?')}, {len(str(block.get('data', '')))} base64 chars]"
        )
    if kind == "resource_link":
        return f"[resource link {block.get('uri', '?')}]"
    if kind == "resource":
        resource = block.get("resource") if isinstance(block.get("resource"), Mapping) else {}
        assert isinstance(resource, Mapping)
        if isinstance(resource.get("text"), str):
            return str(resource["text"])
        return (
            f"[resource {resource.get('uri', '?')} ({resource.get('mimeType', '?')}), "
            f"{len(str(resource.get('blob', '')))} base64 chars]"
        )
    return f"[{kind} block]"


def convert_result(raw: Mapping[str, Any]) -> ToolResult:
    """An MCP CallToolResult (wire form) -> the kit's ToolResult.

    Text and image blocks pass as they are; audio, embedded resources and resource links become a
    text block (an embedded text resource its text, the others a one-line description), since the
    contract knows text and image only. ``details`` is ``structuredContent`` when it is an object.
    """
    blocks: list[dict[str, Any]] = []
    for block in raw.get("content") or []:
        if not isinstance(block, Mapping):
            raise ContractViolation(f"an MCP content block must be an object, got {block!r:.80}")
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block.get("text")})
        elif kind == "image":
            blocks.append(
                {"type": "image", "data": block.get("data"), "mimeType": block.get("mimeType")}
            )
        else:
            blocks.append({"type": "text", "text": _block_text(block)})
    structured = raw.get("structuredContent")
    return ToolResult.from_wire(
        {
            "content": blocks,
            "isError": bool(raw.get("isError", False)),
            "details": dict(structured) if isinstance(structured, Mapping) else {},
        }
    )


def rpc_error_result(code: int, message: str) -> ToolResult:
    """A JSON-RPC error answer shown as a tool error (``json_rpc_errors = "result"``), as an MCP
    host shows it to the model."""
    return ToolResult(
        content=({"type": "text", "text": f"MCP error {code}: {message}"},),
        is_error=True,
        details={"json_rpc_error": {"code": code, "message": message}},
    )


# ---- JSON helpers ---------------------------------------------------------------------------

_MISSING = object()


def lookup(data: Any, steps: tuple[str | int, ...]) -> Any:
    """The value at ``steps`` in parsed JSON, or ``_MISSING``."""
    node = data
    for step in steps:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return _MISSING
            node = node[step]
        else:
            if not isinstance(node, Mapping) or step not in node:
                return _MISSING
            node = node[step]
    return node


def answer_json(result: ToolResult, raw: Mapping[str, Any] | None) -> Any:
    """``structuredContent`` when the server gave an object, else the text parsed as JSON
    (``{}`` when it is not JSON)."""
    structured = (raw or {}).get("structuredContent")
    if isinstance(structured, Mapping):
        return structured
    try:
        return json.loads(result.text)
    except ValueError:
        return {}


# ---- post-processing ------------------------------------------------------------------------


def _matches(rule: IsErrorRule, text: str, data: Any) -> bool:
    if rule.text is not None:
        return rule.text.search(text) is not None
    assert rule.field is not None
    value = lookup(data, rule.field)
    found = value is not _MISSING and value in rule.values
    return not found if rule.negated else found


def stripped(text: str, spec: ResultSpec) -> str:
    for pattern in spec.strip:
        text = pattern.sub("", text)
    return text


# ---- builders -------------------------------------------------------------------------------


class Answer(NamedTuple):
    """What a builder sees: the table, the canonical call, the MCP arguments sent, the converted
    result, the raw ``CallToolResult`` (None for a JSON-RPC error) and the state before the call."""

    mapping: ToolMapping
    call: ToolCall
    sent: Mapping[str, Any]
    result: ToolResult
    raw: Mapping[str, Any] | None
    before: Mapping[str, Any]


def _resolved(call: ToolCall, name: str) -> str | None:
    value = call.arguments.get(name) if isinstance(call.arguments, Mapping) else None
    if not isinstance(value, str) or not value:
        return None
    return os.path.join(call.cwd, value)


def prepare(mapping: ToolMapping, call: ToolCall) -> dict[str, Any]:
    """What a builder must know from before the call (the server's answer cannot say it)."""
    builder = mapping.result.observation
    before: dict[str, Any] = {}
    if builder == "written":
        path = _resolved(call, "path")
        before["existed"] = bool(path and os.path.lexists(path))
    elif builder == "edited":
        path = _resolved(call, "file_path")
        edits = _edit_list(call.arguments)
        if path and any(e.get("replace_all") is True for e in edits):
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                text = ""
            before["counts"] = [
                text.count(e["old_string"])
                if e.get("replace_all") is True
                and isinstance(e.get("old_string"), str)
                and e["old_string"]
                else 1
                for e in edits
            ]
    return before


def _edit_list(arguments: Any) -> list[Mapping[str, Any]]:
    if not isinstance(arguments, Mapping):
        return []
    edits = arguments.get("edits")
    if isinstance(edits, list):
        return [e for e in edits if isinstance(e, Mapping)]
    return [arguments]


def _continuation(spec: ResultSpec, text: str, canonical_base: int) -> int | None:
    if spec.continuation is None:
        return None
    match = spec.continuation.pattern.search(text)
    if not match:
        return None
    return int(match.group(1)) - spec.continuation.base + canonical_base


def text_lines(a: Answer) -> dict[str, Any]:
    """read: the file's text as shown, one observation line per line, from the offset sent."""
    mapping = a.mapping
    call = a.call
    result = a.result
    spec = mapping.result
    source = stripped(result.text, spec)
    if spec.empty is not None and spec.empty.fullmatch(source.strip()):
        source = ""
    lines = source.split("\n")
    if source.endswith("\n") or source == "":
        lines.pop()
    if spec.line_prefix is not None:
        lines = [spec.line_prefix.sub("", line, count=1) for line in lines]
    offset = call.arguments.get("offset") if isinstance(call.arguments, Mapping) else None
    start = 1
    if "offset" not in mapping.drop and isinstance(offset, int) and not isinstance(offset, bool):
        start = max(offset, 1)
    next_offset = _continuation(spec, result.text, 1)
    whole = (
        spec.complete_unless is not None
        and next_offset is None
        and start == 1
        and not any(name in a.sent for name in spec.complete_unless)
    )
    return {
        "kind": "text",
        "start_line": start,
        "lines": lines,
        "total_lines": len(lines) if whole else None,
        "truncated": next_offset is not None,
        "truncated_by": "lines" if next_offset is not None else None,
        "next_offset": next_offset,
    }


def written(a: Answer) -> dict[str, Any]:
    """write: the server said it wrote the content it was sent; its size in UTF-8 bytes."""
    call = a.call
    before = a.before
    content = call.arguments.get("content") if isinstance(call.arguments, Mapping) else None
    size = len(content.encode("utf-8", "surrogatepass")) if isinstance(content, str) else 0
    return {
        "path": _resolved(call, "path") or "",
        "bytes_written": size,
        "created": not before.get("existed", False),
    }


def first_changed_line(text: str) -> int | None:
    """The first changed line (new-file numbering) of the first hunk of a unified diff."""
    match = _HUNK.search(text)
    if not match:
        return None
    line = int(match.group(1))
    for row in text[match.end() :].split("\n")[1:]:
        if row.startswith(("+", "-")) and not row.startswith(("+++", "---")):
            return max(line, 1)
        if row.startswith(" ") or row == "":
            line += 1
        else:
            break
    return max(line, 1)


def edited(a: Answer) -> dict[str, Any]:
    """edit: one replacement per edit sent (``replace_all``: the occurrences counted before)."""
    call = a.call
    result = a.result
    before = a.before
    edits = _edit_list(call.arguments)
    counts = before.get("counts") or [1] * len(edits)
    return {
        "path": _resolved(call, "file_path") or "",
        "replacements": int(sum(counts)) if edits else 0,
        "first_changed_line": first_changed_line(result.text),
    }


def path_lines(a: Answer) -> dict[str, Any]:
    """grep/glob: one path per line; relative paths are relative to the search root sent."""
    mapping = a.mapping
    call = a.call
    result = a.result
    spec = mapping.result
    source = stripped(result.text, spec)
    rows = [row.strip() for row in source.split("\n") if row.strip()]
    if spec.empty is not None and spec.empty.fullmatch(source.strip()):
        rows = []
    root = _resolved(call, "path") or call.cwd

    def absolute(path: str) -> str:
        return path if os.path.isabs(path) else os.path.join(root, path)

    next_offset = _continuation(spec, result.text, 0)
    paging = {"truncated": next_offset is not None, "next_offset": next_offset}
    if call.tool == "glob":
        return {"paths": [absolute(r) for r in rows], **paging}
    mode = call.arguments.get("output_mode") if isinstance(call.arguments, Mapping) else None
    if mode == "content":
        lines = []
        for row in rows:
            match = _GREP_LINE.match(row)
            if match:
                lines.append(
                    {
                        "path": absolute(match["path"]),
                        "line": int(match["line"]),
                        "text": match["text"],
                        "match": match["sep"] == ":",
                    }
                )
        return {"mode": "content", "lines": lines, **paging}
    if mode == "count":
        counts = []
        for row in rows:
            path, _, count = row.rpartition(":")
            if path and count.isdigit():
                counts.append({"path": absolute(path), "count": int(count)})
        return {"mode": "count", "counts": counts, **paging}
    return {"mode": "files_with_matches", "files": [absolute(r) for r in rows], **paging}


def _field(rule: Any, data: Any, sent: Mapping[str, Any]) -> Any:
    if isinstance(rule, str):
        value = lookup(data, parse_target(rule))
        return None if value is _MISSING else value
    if isinstance(rule, list):
        parts = [lookup(data, parse_target(r)) for r in rule]
        return "".join(p for p in parts if isinstance(p, str))
    if "value" in rule:
        return rule["value"]
    if "argument" in rule:
        value = lookup(sent, parse_target(str(rule["argument"])))
        return rule.get("default") if value is _MISSING else value
    value = lookup(data, parse_target(str(rule["field"])))
    if "in" in rule:
        return value is not _MISSING and value in rule["in"]
    if "not_in" in rule:
        return value is not _MISSING and value not in rule["not_in"]
    return rule.get("default") if value is _MISSING else value


def json_fields(a: Answer) -> dict[str, Any]:
    """Any tool: observation keys taken from the JSON answer (or the arguments sent)."""
    mapping = a.mapping
    sent = a.sent
    result = a.result
    raw = a.raw
    data = answer_json(result, raw)
    return {key: _field(rule, data, sent) for key, rule in mapping.result.fields.items()}


def structured(a: Answer) -> Any:
    """Any tool: ``structuredContent.observation`` as the server gave it (None when absent).

    For a server that carries the implementation's own ``details`` in ``structuredContent``
    (``agenttools serve --mcp``): nothing is built, so the observation is the server's own.
    """
    data = (a.raw or {}).get("structuredContent")
    return data.get("observation") if isinstance(data, Mapping) else None


BUILDERS = {
    "text_lines": text_lines,
    "written": written,
    "edited": edited,
    "path_lines": path_lines,
    "json_fields": json_fields,
    "structured": structured,
}


def nothing_ran(tool: str) -> dict[str, Any] | None:
    """The observation of a refused bash/task_output call: nothing ran."""
    if tool in ALWAYS_OBSERVED:
        return {"running": False, "exit_code": None, "output": ""}
    return None


def finish(
    mapping: ToolMapping,
    call: ToolCall,
    sent: Mapping[str, Any],
    raw: Mapping[str, Any] | None,
    before: Mapping[str, Any],
    rpc_error: tuple[int, str] | None = None,
) -> ToolResult:
    """The kit's result for a server's answer (``raw``) or JSON-RPC error, with its observation."""
    spec = mapping.result
    if rpc_error is not None:
        result = rpc_error_result(*rpc_error)
    else:
        assert raw is not None
        result = convert_result(raw)
        if spec.is_error and not result.is_error:
            data = answer_json(result, raw) if any(r.field for r in spec.is_error) else None
            if any(_matches(rule, result.text, data) for rule in spec.is_error):
                result = ToolResult(result.content, True, result.details)
    observed = not result.is_error or call.tool in ALWAYS_OBSERVED
    builder = BUILDERS.get(spec.observation)
    details = dict(result.details)
    if builder is None or not observed:
        pass  # no builder named: the mapping gives no observation, and the clauses say so
    elif rpc_error is not None and spec.observation not in ("json_fields", "structured"):
        details["observation"] = nothing_ran(call.tool)
    else:
        observation = builder(Answer(mapping, call, sent, result, raw, before))
        if rpc_error is not None and observation is None:
            observation = nothing_ran(call.tool)
        if observation is not None:
            details["observation"] = observation
    return ToolResult(result.content, result.is_error, details)
