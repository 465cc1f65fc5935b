"""Named value transforms of the MCP mapping: a canonical value becomes what a server expects.

A transform is named in a ``[tools.NAME] transforms`` table (``timeout = "seconds_to_ms"``, or a
table ``{name = "...", ...parameters}``). It gets the canonical value and answers the value to
place at the argument's target, or a ``Spread`` of several MCP arguments (``pages`` becomes an
offset and a length). A value a transform cannot convert (a string where a number belongs, a
negative page) is passed on unchanged: the server's own validation then answers for it, which is
the behaviour under test, never the adapter's.

Every transform is a small pure function, listed in ``TRANSFORMS`` with the parameters it takes,
so a mapping file is validated strictly (an unknown name or parameter is an error naming it).
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Spread:
    """Several MCP arguments from one canonical value (each name is a top-level MCP argument)."""

    values: Mapping[str, Any]


@dataclass(frozen=True)
class Context:
    """What a transform may look at besides the value: the whole call (for counts, paths)."""

    arguments: Mapping[str, Any]
    cwd: str


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def seconds_to_ms(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """Seconds (int or float) -> whole milliseconds."""
    return round(value * 1000) if _number(value) else value


def ms_to_seconds(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """Milliseconds -> seconds (a float when not whole)."""
    if not _number(value):
        return value
    seconds = value / 1000
    return int(seconds) if float(seconds).is_integer() else seconds


def ceil_int(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """A number -> the smallest integer not below it (0.5 s becomes 1 s for integer-only tools).

    ``min``/``max`` (optional) clamp the result: only use them where the server itself clamps,
    or the adapter would hide a refused value.
    """
    if not _number(value):
        return value
    result = math.ceil(value)
    if "min" in params:
        result = max(result, int(params["min"]))
    if "max" in params:
        result = min(result, int(params["max"]))
    return result


def one_to_zero_based(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """A canonical 1-based line number -> the 0-based index a server expects (1 -> 0)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value - 1
    return value


def zero_to_one_based(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """A canonical 0-based result offset -> a 1-based one (0 -> 1)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value + 1
    return value


def to_string(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """Numbers and booleans -> their JSON spelling as a string (``3`` -> ``"3"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if _number(value):
        return str(value)
    return value


def negate(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """A boolean -> its opposite (``include_ignored`` -> ``respect_gitignore``)."""
    return (not value) if isinstance(value, bool) else value


def choose(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """Map values through a table: ``{name = "choose", values = {true = "background", ...}}``.

    Keys are the JSON spelling of the canonical value (``true``, ``3``, ``"content"`` without
    quotes); a value not in the table passes unchanged.
    """
    table = params["values"]
    key = "true" if value is True else "false" if value is False else str(value)
    return table.get(key, value)


def replace_all_to_count(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """``replace_all`` -> an expected-replacements count (servers that take one).

    ``false`` is 1. ``true`` is the number of times ``old_string`` occurs in the file now
    (the adapter counts it on disk, as a caller of such a server would have to), at least 1.
    """
    if value is False:
        return 1
    if value is not True:
        return value
    old = ctx.arguments.get(str(params.get("old", "old_string")))
    path = ctx.arguments.get(str(params.get("path", "file_path")))
    if not isinstance(old, str) or not old or not isinstance(path, str) or not path:
        return 1
    try:
        with open(os.path.join(ctx.cwd, path), encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError:
        return 1
    return max(1, text.count(old))


_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def pages_to_range(value: Any, ctx: Context, params: Mapping[str, Any]) -> Any:
    """``pages = "3-5"`` -> ``{start: 3, count: 3}`` under the names given.

    Parameters: ``start`` and ``count`` (the MCP argument names), ``base`` (0 or 1: the server's
    number for the first page, default 1). A value that is not ``N`` or ``N-M`` with N <= M
    passes unchanged under ``start``, so the server refuses it.
    """
    start_name, count_name = str(params["start"]), str(params["count"])
    base = int(params.get("base", 1))
    match = _RANGE.match(value) if isinstance(value, str) else None
    limit = sys.get_int_max_str_digits() or math.inf
    if not match or max(len(match[1]), len(match[2] or "")) >= limit:
        # not a range, or a page number of more digits than Python turns into an int (4,300 by
        # default) and JSON carries: passed as it is, the server's own validation answers
        return Spread({start_name: value})
    first = int(match[1])
    last = int(match[2]) if match[2] else first
    if first < 1 or last < first:
        return Spread({start_name: value})
    return Spread({start_name: first - 1 + base, count_name: last - first + 1})


@dataclass(frozen=True)
class TransformSpec:
    function: Callable[[Any, Context, Mapping[str, Any]], Any]
    required: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    spreads: bool = False
    doc: str = field(default="")


TRANSFORMS: Mapping[str, TransformSpec] = {
    "seconds_to_ms": TransformSpec(seconds_to_ms),
    "ms_to_seconds": TransformSpec(ms_to_seconds),
    "ceil_int": TransformSpec(ceil_int, optional=frozenset({"min", "max"})),
    "one_to_zero_based": TransformSpec(one_to_zero_based),
    "zero_to_one_based": TransformSpec(zero_to_one_based),
    "to_string": TransformSpec(to_string),
    "negate": TransformSpec(negate),
    "choose": TransformSpec(choose, required=frozenset({"values"})),
    "replace_all_to_count": TransformSpec(
        replace_all_to_count, optional=frozenset({"old", "path"})
    ),
    "pages_to_range": TransformSpec(
        pages_to_range,
        required=frozenset({"start", "count"}),
        optional=frozenset({"base"}),
        spreads=True,
    ),
}


@dataclass(frozen=True)
class Transform:
    """A parsed transform: the spec and its parameters."""

    name: str
    spec: TransformSpec
    params: Mapping[str, Any]

    def apply(self, value: Any, ctx: Context) -> Any:
        """The converted value; a value the transform cannot convert passes unchanged."""
        try:
            return self.spec.function(value, ctx, self.params)
        except (ValueError, TypeError, OverflowError, RecursionError):
            # e.g. str() of an integer of more than 4,300 digits: not this value's transform
            return value


def parse_transform(raw: Any, where: str) -> Transform:
    """``"name"`` or ``{name = "...", param = ...}`` -> Transform; ValueError names the key."""
    import difflib

    if isinstance(raw, str):
        name, params = raw, {}
    elif isinstance(raw, Mapping) and isinstance(raw.get("name"), str):
        name = raw["name"]
        params = {k: v for k, v in raw.items() if k != "name"}
    else:
        raise ValueError(f"{where} must be a transform name or a table with a 'name'")
    spec = TRANSFORMS.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(TRANSFORMS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"{where}: unknown transform {name!r}{hint}; known: {', '.join(sorted(TRANSFORMS))}"
        )
    missing = spec.required - set(params)
    if missing:
        raise ValueError(f"{where}: transform {name!r} needs {sorted(missing)}")
    extra = set(params) - spec.required - spec.optional
    if extra:
        raise ValueError(
            f"{where}: transform {name!r} has unknown parameters {sorted(extra)}"
            f" (it takes {sorted(spec.required | spec.optional) or 'none'})"
        )
    if name == "choose" and not isinstance(params["values"], Mapping):
        raise ValueError(f"{where}: transform 'choose' needs a table 'values'")
    if name == "pages_to_range" and params.get("base", 1) not in (0, 1):
        raise ValueError(f"{where}: transform 'pages_to_range' base must be 0 or 1")
    return Transform(name, spec, dict(params))
