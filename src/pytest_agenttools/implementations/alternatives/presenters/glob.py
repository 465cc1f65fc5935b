"""How each alternative presents `glob` results, and what its manifest says about `glob`.

A presenter ``(arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). A style module (``alternatives/<style>.py``) picks one per tool, with
the manifest fragment and reference set-up (another operations port ...) that go with it.

- ``tab_absolute`` (Claude Code): absolute paths, one per line, ``No files found``.
- ``header_first`` (Gemini CLI): the paging notice first, then ``Found N file(s) matching
  "p" within /abs``, absolute paths; patterns in the ``minimatch`` dialect with ``dot: true``
  (node's glob, as Gemini CLI calls it).
- ``raw_text`` (pi's find): paths relative to the search directory, ``No files found matching
  pattern``, pi's limit notice.
- ``renamed_arguments`` (OpenCode): absolute paths and its own argument names (includeIgnored,
  sortBy, skip, maxResults) in every message.
- ``refuses_sensitive``: a sensitive search root is refused with an error.
- ``reworded_errors`` (Codex, which lists files through the shell): every error in other words,
  and patterns in the ``bash`` dialect (globstar on, dotglob off).
- ``tagged`` (Cursor): ``<glob_results>`` around ``<path>`` entries.

``char_units`` presents glob as the reference does: glob has no size limit in characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.alternatives.presenters.grep import (
    absolute,
    argument,
    below,
    own_names,
    reference_notes,
    search_root,
    text_of,
)

ARGUMENTS = ("pattern", "path", "include_ignored", "sort", "offset", "limit")


def _paths(found: Mapping[str, Any]) -> list[str]:
    return list(found.get("paths", []))


def _claude(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    paths = [absolute(p, cwd) for p in _paths(found)]
    out = paths or ["No files found"]
    out += reference_notes(result)
    if found.get("next_offset") is not None:
        out.append(
            f"(Results are truncated: {len(paths)} of {found.get('total')} shown. Pass offset: "
            f"{found['next_offset']} for the next page, or use a more specific pattern.)"
        )
    return "\n".join(out)


def _claude_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    code = result.get("details", {}).get("error")
    words = {
        "not_found": "Directory does not exist",
        "symlink_loop": "Path is a symbolic link loop",
        "not_a_directory": "Path is not a directory",
        "permission_denied": "Directory cannot be read",
    }
    if code in words:
        root = search_root(arguments, cwd)
        return f"<tool_use_error>{words[code]}: {root}</tool_use_error>"
    return f"<tool_use_error>{text_of(result)}</tool_use_error>"


def _gemini(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    root = search_root(arguments, cwd)
    pattern = argument(arguments, "pattern")
    paths = _paths(found)
    out: list[str] = []
    if found.get("next_offset") is not None:
        first = (argument(arguments, "offset") or 0) + 1
        out.append(
            f"[Showing files {first}-{first + len(paths) - 1} of {found.get('total')}; call "
            f"again with offset {found['next_offset']} for more]"
        )
    out += reference_notes(result)
    if not paths:
        out.append(f'No files found matching pattern "{pattern}" within {root}')
        return "\n".join(out)
    order = "newest first" if argument(arguments, "sort") == "modified" else "sorted by path"
    out.append(f'Found {len(paths)} file(s) matching "{pattern}" within {root}, {order}:')
    out += [absolute(p, cwd) for p in paths]
    return "\n".join(out)


def _pi(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    root = search_root(arguments, cwd)
    paths = [below(p, cwd, root) for p in _paths(found)]
    out = paths or [f"No files found matching pattern {argument(arguments, 'pattern')}"]
    out += reference_notes(result)
    if found.get("next_offset") is not None:
        out += [
            "",
            f"[{len(paths)} results limit reached. Use offset={found['next_offset']} for more, "
            "or refine pattern]",
        ]
    return "\n".join(out)


OPENCODE_NAMES = {
    "glob.include_ignored": "includeIgnored",
    "glob.sort": "sortBy",
    "glob.offset": "skip",
    "glob.limit": "maxResults",
}


def _opencode(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    paths = [absolute(p, cwd) for p in _paths(found)]
    out = paths or ["No files found"]
    out += [own_names(note, OPENCODE_NAMES, "glob") for note in reference_notes(result)]
    if found.get("next_offset") is not None:
        out += ["", f"(Results are truncated. Use skip={found['next_offset']} to see more.)"]
    return "\n".join(out)


def _opencode_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    return own_names(text_of(result), OPENCODE_NAMES, "glob")


def _cursor(arguments: Any, cwd: str, result: dict[str, Any], found: dict[str, Any]) -> str:
    out = [f'<glob_results pattern="{argument(arguments, "pattern")}">']
    out += [f"<path>{p}</path>" for p in _paths(found)] or ["<none>no files matched</none>"]
    out += [f"<note>{note[1:-1]}</note>" for note in reference_notes(result)]
    if found.get("next_offset") is not None:
        out.append(
            f'<truncated next_offset="{found["next_offset"]}" total="{found.get("total")}"/>'
        )
    out.append("</glob_results>")
    return "\n".join(out)


def _cursor_errors(arguments: Any, cwd: str, result: dict[str, Any]) -> str:
    return f'<error tool="glob">{text_of(result)}</error>'
