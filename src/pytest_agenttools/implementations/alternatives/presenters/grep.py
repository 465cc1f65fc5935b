"""How each alternative presents `grep` results, and what its manifest says about `grep`.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

Every style re-renders the text from the observation, so the results are exactly the
reference's; what changes is the layout, the path form, the notices and the words:

- ``tab_absolute`` (Claude Code): absolute paths, ``Found N files`` before the list, a
  truncation remark after it, its own error wording.
- ``header_first`` (Gemini CLI): the paging notice first, then ``Found N matches for pattern
  "p" in path "."``, the matches grouped per file (``File: a.txt`` then ``L12: text``).
- ``raw_text`` (pi): ``path:N: text`` lines, ``No matches found``, pi's limit notice.
- ``renamed_arguments`` (OpenCode): absolute paths in per-file blocks (``  Line 12: text``) and
  its own argument names (include, caseInsensitive, skip, maxResults ...) in every message.
- ``refuses_sensitive`` (a policy-enforcing MCP server): a sensitive search root is refused
  with an error instead of answered empty.
- ``reworded_errors`` (Codex): the same results, every error in other words.
- ``tagged`` (Cursor): results in ``<grep_results>``/``<file>``/``<line>`` tags.

``char_units`` presents grep as the reference does: its line cap already counts characters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_agenttools.implementations.alternatives._result import (
    argument,
    observation,
    set_text,
    text_of,
)

Present = Callable[[Any, str, dict[str, Any]], dict[str, Any]]
ARGUMENTS = (
    "pattern",
    "path",
    "glob",
    "output_mode",
    "literal",
    "ignore_case",
    "context",
    "offset",
    "limit",
)
PATH_ERRORS = frozenset(
    {"not_found", "symlink_loop", "permission_denied", "not_regular_file", "io_error"}
    | {"not_a_directory", "too_large"}
)


# --- where the search ran ----------------------------------------------------------------


def search_root(arguments: Any, cwd: str) -> str:
    """The directory (or file) searched, absolute, as the reference resolved it."""
    raw = argument(arguments, "path")
    if not isinstance(raw, str) or not raw.strip():
        return cwd
    raw = os.path.expanduser(raw) if raw.startswith("~") else raw
    return os.path.normpath(os.path.join(cwd, raw))


def absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def below(path: str, cwd: str, root: str) -> str:
    """A result path relative to the search root (the file's name when the root is a file)."""
    full = absolute(path, cwd)
    base = root if os.path.isdir(root) else os.path.dirname(root)
    rel = os.path.relpath(full, base)
    return full if rel.startswith("..") else rel


def subject(result: Mapping[str, Any], names: tuple[str, ...] = ARGUMENTS) -> str | None:
    """The argument an error is about: the first canonical name its reference text mentions."""
    text = text_of(result)
    found = [(m.start(), n) for n in names if (m := re.search(rf"(?<![\w.]){n}(?!\w)", text))]
    return min(found)[1] if found else None


def is_sensitive_answer(result: Mapping[str, Any]) -> bool:
    return not result.get("isError") and result.get("details", {}).get("excluded") == "sensitive"


def reference_notes(result: Mapping[str, Any]) -> list[str]:
    """The reference's bracketed notes (a cut line, an output cap), without its paging one."""
    return [
        line
        for line in text_of(result).split("\n")
        if line.startswith("[") and line.endswith("]") and "offset=" not in line
    ]


Line = Mapping[str, Any]


def by_file(lines: list[Line]) -> list[tuple[str, list[Line]]]:
    groups: list[tuple[str, list[Line]]] = []
    for line in lines:
        if not groups or groups[-1][0] != line["path"]:
            groups.append((line["path"], []))
        groups[-1][1].append(line)
    return groups


def rewrite(
    render: Callable[[Any, str, dict[str, Any], dict[str, Any]], str],
    errors: Callable[[Any, str, dict[str, Any]], str] | None = None,
) -> Present:
    """A PRESENT function: ``render`` rewrites successes, ``errors`` (if given) error texts."""

    def present(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
        if result.get("isError"):
            return set_text(result, errors(arguments, cwd, result)) if errors else result
        found = observation(result)
        if found is None:
            return result
        return set_text(result, render(arguments, cwd, result, found))

    return present


def count_of(found: Mapping[str, Any]) -> int:
    mode = found.get("mode")
    if mode == "content":
        return sum(1 for line in found.get("lines", []) if line.get("match"))
    return len(found.get("counts" if mode == "count" else "files", []))


# --- tab_absolute (Claude Code) -------------------------------------------------------------


def _claude(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    mode = found["mode"]
    out: list[str] = []
    if mode == "files_with_matches":
        files = [absolute(p, cwd) for p in found["files"]]
        out = [f"Found {len(files)} file{'s' if len(files) != 1 else ''}", *files]
        if not files:
            out = ["No files found"]
    elif mode == "count":
        total = 0
        for item in found["counts"]:
            out.append(f"{absolute(item['path'], cwd)}:{item['count']}")
            total += item["count"]
        out += ["", f"Found {total} total occurrences across {len(found['counts'])} files."]
        if not found["counts"]:
            out = ["No matches found"]
    else:
        for line in found["lines"]:
            mark = ":" if line["match"] else "-"
            out.append(f"{absolute(line['path'], cwd)}{mark}{line['line']}{mark}{line['text']}")
        if not found["lines"]:
            out = ["No matches found"]
    out += reference_notes(result)
    if found.get("next_offset") is not None:
        out += [
            "",
            f"(Results are truncated: showing {count_of(found)} of {found.get('total')}. "
            f"Pass offset: {found['next_offset']} to see the next page.)",
        ]
    return "\n".join(out)


def _claude_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    code = result.get("details", {}).get("error")
    if code in PATH_ERRORS:
        path = search_root(arguments, cwd)
        return f"<tool_use_error>Path does not exist or cannot be searched: {path}</tool_use_error>"
    if code == "invalid_regex":
        return (
            "<tool_use_error>The pattern is not a valid regular expression. Escape it, or set "
            "literal: true.</tool_use_error>"
        )
    name = subject(result)
    if name:
        value = argument(arguments, name)
        shown = f"{value!r:.60}"
        return f"<tool_use_error>InputValidationError: {name} is invalid ({shown})</tool_use_error>"
    return f"<tool_use_error>{text_of(result)}</tool_use_error>"


# --- header_first (Gemini CLI) --------------------------------------------------------------


def _gemini(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    root = search_root(arguments, cwd)
    where = os.path.relpath(root, cwd) if not os.path.relpath(root, cwd).startswith("..") else root
    pattern = argument(arguments, "pattern")
    filters = argument(arguments, "glob")
    suffix = f' (filter: "{filters}")' if filters else ""
    mode = found["mode"]
    out: list[str] = []
    if found.get("next_offset") is not None:
        first = (argument(arguments, "offset") or 0) + 1
        out.append(
            f"[Showing results {first}-{first + count_of(found) - 1} of {found.get('total')}; "
            f"call again with offset {found['next_offset']} for more]"
        )
    out += reference_notes(result)
    if not count_of(found):
        return "\n".join([*out, f'No matches found for pattern "{pattern}" in path "{where}".'])
    if mode == "files_with_matches":
        out.append(
            f'Found {len(found["files"])} files with matches for pattern "{pattern}" in path '
            f'"{where}"{suffix}:'
        )
        out += ["---", *(below(p, cwd, root) for p in found["files"])]
        return "\n".join(out)
    if mode == "count":
        out.append(f'Found matches in {len(found["counts"])} files for pattern "{pattern}":')
        for item in found["counts"]:
            out += ["---", f"File: {below(item['path'], cwd, root)}", f"Count: {item['count']}"]
        return "\n".join(out)
    out.append(
        f'Found {count_of(found)} matches for pattern "{pattern}" in path "{where}"{suffix}:'
    )
    for path, lines in by_file(found["lines"]):
        out += ["---", f"File: {below(path, cwd, root)}"]
        out += [f"L{x['line']}{':' if x['match'] else '-'} {x['text']}" for x in lines]
    out.append("---")
    return "\n".join(out)


# --- raw_text (pi) --------------------------------------------------------------------------


def _pi(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    root = search_root(arguments, cwd)
    mode = found["mode"]
    if mode == "files_with_matches":
        out = [below(p, cwd, root) for p in found["files"]]
    elif mode == "count":
        out = [f"{below(x['path'], cwd, root)}: {x['count']}" for x in found["counts"]]
    else:
        out = [
            f"{below(x['path'], cwd, root)}{':' if x['match'] else '-'}{x['line']}"
            f"{':' if x['match'] else '-'} {x['text']}"
            for x in found["lines"]
        ]
    if not out:
        out = ["No matches found"]
    out += reference_notes(result)
    if found.get("next_offset") is not None:
        out += [
            "",
            f"[{count_of(found)} results limit reached. Use offset={found['next_offset']} to "
            "continue, or refine pattern]",
        ]
    return "\n".join(out)


# --- renamed_arguments (OpenCode) -----------------------------------------------------------

OPENCODE_NAMES = {
    "grep.glob": "include",
    "grep.output_mode": "outputMode",
    "grep.literal": "fixedStrings",
    "grep.ignore_case": "caseInsensitive",
    "grep.context": "contextLines",
    "grep.offset": "skip",
    "grep.limit": "maxResults",
}


def own_names(text: str, names: Mapping[str, str], tool: str) -> str:
    """The reference's words with each canonical argument name replaced by the tool's own."""
    for canonical, own in names.items():
        prefix, _, arg = canonical.partition(".")
        if prefix == tool:
            text = re.sub(rf"(?<![\w.]){arg}(?!\w)", own, text)
    return text


def _opencode(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    mode = found["mode"]
    out: list[str] = []
    if not count_of(found):
        out = ["No files found"]
    elif mode == "files_with_matches":
        out = [f"Found {len(found['files'])} files", *(absolute(p, cwd) for p in found["files"])]
    elif mode == "count":
        out = [f"Found {len(found['counts'])} files"]
        out += [f"{absolute(x['path'], cwd)}: {x['count']} matches" for x in found["counts"]]
    else:
        out = [f"Found {count_of(found)} matches"]
        for path, lines in by_file(found["lines"]):
            out += ["", f"{absolute(path, cwd)}:"]
            out += [f"  Line {x['line']}: {x['text']}" for x in lines]
    out += [own_names(note, OPENCODE_NAMES, "grep") for note in reference_notes(result)]
    if found.get("next_offset") is not None:
        out += ["", f"(Results are truncated. Use skip={found['next_offset']} to see more.)"]
    return "\n".join(out)


def _opencode_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    return own_names(text_of(result), OPENCODE_NAMES, "grep")


# --- refuses_sensitive ----------------------------------------------------------------------


def refuse_sensitive(tool: str) -> Present:
    """A sensitive root is refused with an error that names only the root the model gave."""

    def present(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
        if not is_sensitive_answer(result):
            return result
        root = result.get("details", {}).get("root") or search_root(arguments, cwd)
        return {
            "content": [
                {
                    "type": "text",
                    "text": f"Refused: {tool} does not search {root}, a location that may hold "
                    "credentials or version-control data. Search another directory.",
                }
            ],
            "isError": True,
            "details": {"error": "sensitive_path", "root": root},
        }

    return present


# --- reworded_errors (Codex) ----------------------------------------------------------------


def codex_errors(tool: str, names: tuple[str, ...]) -> Callable[[Any, str, dict[str, Any]], str]:
    def reword(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
        code = result.get("details", {}).get("error")
        if code in PATH_ERRORS:
            path = search_root(arguments, cwd)
            return f"error: {tool} cannot use {path} ({str(code).replace('_', ' ')})"
        if code == "invalid_regex":
            return (
                "error: regex parse failure in `pattern`; retry with `literal: true` to match "
                "the text verbatim"
            )
        if code == "timeout":
            return f"error: {tool} exceeded its time budget and was stopped; narrow the search"
        if code == "too_broad":
            return (
                "error: `include_ignored` needs a narrow search (a subdirectory, a directory "
                "prefix or an exact file name)"
            )
        name = subject(result, names)
        if name is not None:
            value = argument(arguments, name)
            shown = "nothing" if value is None else f"{value!r:.60}"
            return f"error: invalid value for `{name}`: got {shown}"
        return f"error: {tool} failed: {text_of(result)}"

    return reword


# --- tagged (Cursor) ------------------------------------------------------------------------


def _cursor(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    mode = found["mode"]
    out = [f'<grep_results pattern="{argument(arguments, "pattern")}" mode="{mode}">']
    if mode == "files_with_matches":
        out += [f"<file>{p}</file>" for p in found["files"]]
    elif mode == "count":
        out += [f'<file path="{x["path"]}" matches="{x["count"]}"/>' for x in found["counts"]]
    else:
        for path, lines in by_file(found["lines"]):
            out.append(f'<file path="{path}">')
            for x in lines:
                kind = "match" if x["match"] else "context"
                out.append(f'<line number="{x["line"]}" kind="{kind}">{x["text"]}</line>')
            out.append("</file>")
    if not count_of(found):
        out.append("<none>no matches</none>")
    out += [f"<note>{note[1:-1]}</note>" for note in reference_notes(result)]
    if found.get("next_offset") is not None:
        out.append(
            f'<truncated next_offset="{found["next_offset"]}" total="{found.get("total")}"/>'
        )
    out.append("</grep_results>")
    return "\n".join(out)


def _cursor_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    return f'<error tool="grep">{text_of(result)}</error>'


def chain(*steps: Present) -> Present:
    def present(arguments: Any, cwd: str, result: dict[str, Any]) -> dict[str, Any]:
        for step in steps:
            result = step(arguments, cwd, result)
        return result

    return present
