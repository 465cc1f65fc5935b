"""The canonical contract between the kit and an implementation.

Everything here is plain data that survives a JSON round trip, so an in-process adapter and a
stdio adapter carry exactly the same values: ``wire_value`` is the one normalisation every
adapter applies to calls and answers. Nothing in this module imports pytest.
"""

from __future__ import annotations

import base64
import difflib
import json
import math
import re
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_agenttools.harness.observations import Observation, parse_observation
from pytest_agenttools.harness.tracebacks import kit_frame
from pytest_agenttools.harness.violation import ContractViolation
from pytest_agenttools.spec.clauses import load

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame

PROTOCOL = "agenttools/2"
SPEC_VERSION = "0.2"

#: Canonical tool names (the Claude Code dialect); docs/spec.md lists their arguments.
TOOLS: frozenset[str] = frozenset({"read", "write", "edit", "grep", "glob", "bash", "task_output"})


@dataclass(frozen=True)
class LineNumberStyle:
    """One declarable ``output.line_numbers`` value: how read shows a numbered line.

    ``numbered`` matches one shown line that carries a number (group 1 the number, group 2 the
    line's text); ``render`` is the line as the style shows it (what a model would copy into
    ``old_string``). ``none`` carries no numbers: nothing matches it.
    """

    name: str
    #: what the number looks like in words (the clause's text and the tests' messages)
    described: str
    numbered: re.Pattern[str] | None
    sample: str = ""

    def render(self, number: int, text: str) -> str:
        return self.sample.format(number=number, text=text)

    def parse(self, line: str) -> tuple[int, str] | None:
        found = self.numbered.match(line) if self.numbered else None
        return (int(found.group(1)), found.group(2)) if found else None


#: every ``output.line_numbers`` value a manifest may declare (READ-LN-01, EDIT-LN-02)
LINE_NUMBER_STYLE: Mapping[str, LineNumberStyle] = {
    style.name: style
    for style in (
        LineNumberStyle(
            "arrow",
            "the number right-aligned to width 6, then '\u2192'",
            re.compile(r"^ *(\d+)\u2192(.*)$", re.S),
            "{number:>6}\u2192{text}",
        ),
        LineNumberStyle(
            "tab",
            "the number right-aligned to width 6, then a tab",
            re.compile(r"^ *(\d+)\t(.*)$", re.S),
            "{number:>6}\t{text}",
        ),
        LineNumberStyle(
            "pipe",
            "the number (padded on the left with spaces or zeros to any width), then '|' with "
            "at most one space before it and one space after it",
            re.compile(r"^ *(\d+) ?\| (.*)$", re.S),
            "{number:>6} | {text}",
        ),
        LineNumberStyle("none", "no number", None),
    )
}
LINE_NUMBER_STYLES = frozenset(LINE_NUMBER_STYLE)
GLOB_DIALECTS = frozenset({"gitignore", "bash", "minimatch"})
#: glob dialects a manifest may not declare, each with why and what to do instead
REFUSED_GLOB_DIALECTS: Mapping[str, str] = {
    "pathlib": (
        "Python's pathlib glob has no {a,b} braces, which every glob tool models are prompted "
        "with reads alike (GLOB-PAT-03). Declare minimatch, which the rest follows (the whole "
        "relative path is matched; whether * matches dotfiles is not judged). A tool of your "
        "own can expand braces itself (one pathlib glob per alternative, results merged and "
        "sorted), where the model sees it; an adapter of someone else's tool never adds what "
        "the tool lacks, so there the missing braces show as GLOB-PAT-03 failures."
    ),
}
MANIFEST_KEYS = frozenset(
    {"name", "version", "protocol", "spec_version", "tools", "features", "output", "limits"}
    | {"settings", "dialect"}
)
OUTPUT_KEYS = frozenset({"line_numbers", "profile"})
DIALECT_KEYS = frozenset({"arguments", "offset_base", "glob", "session_env"})
#: what ``dialect.session_env`` may name: the session facts of the ``bash.session_env`` feature
#: (BASH-SESSION-01); an implementation lists the ones it injects, with its own variable names
SESSION_ENV_KEYS = ("session_id", "session_file", "provider", "model", "reasoning_level")
SESSION_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the kit's own namespace: layer A removes every inherited name in it (BASH-ENV-01)
KIT_NAMESPACE = "AGENTTOOLS_"
#: the base of each paging tool's own offsets when the dialect does not say otherwise
DEFAULT_OFFSET_BASE: Mapping[str, int] = {"read": 1, "grep": 0, "glob": 0}
#: a limit name that starts with this is the implementation's own and is not validated
PRIVATE_PREFIX = "x-"
#: settings that are not limits: ``confine.roots`` sets the roots of the confine.* features
#: (docs/adapter-protocol.md, Confinement); ``bash.session_env = false`` turns the session
#: variables off (BASH-SESSION-03)
OTHER_SETTINGS = frozenset({"confine.roots", "bash.session_env"})


def wire_value(value: Any, *, what: str = "value") -> Any:
    """``value`` as it arrives after one trip through JSON: tuples become lists, keys strings.

    NaN and infinities are not JSON; refusing them here keeps every adapter to what the wire
    can carry (a strict JSON parser in Node or Go rejects the whole line). Strings with lone
    surrogates survive (JSON escapes them).

    Most values are JSON data already (plain dicts with string keys, lists, strings, finite
    numbers): those are copied container by container, sharing their strings, which gives what
    the trip would and skips encoding a megabyte string only to decode it again. Anything else
    (a tuple, a subclass, a non-finite or huge number, deep nesting) makes the trip itself.
    """
    plain = _plain_copy(value, 0)
    if plain is not _NOT_PLAIN:
        return plain
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except ValueError as exc:
        raise ContractViolation(f"{what} is not valid JSON ({exc})") from None
    except RecursionError:
        raise ContractViolation(f"{what} is nested too deeply to carry as JSON") from None
    except TypeError as exc:
        raise ContractViolation(f"{what} is not JSON data ({exc})") from None


_NOT_PLAIN = object()
#: nesting a plain copy follows before it leaves the value to JSON (whose own limit decides)
_PLAIN_DEPTH = 64
#: bits of an int that JSON carries back unchanged in any Python: 617 decimal digits at most,
#: below 640, the lowest cap ``sys.set_int_max_str_digits`` accepts (4,300 by default)
_PLAIN_INT_BITS = 2048


def _plain_str(value: str) -> bool:
    """No surrogate code point: JSON writes one as an escape and reads an escaped pair back as
    one character. UTF-8 refuses every surrogate (paired or not: a ``str`` holds them apart),
    and encoding checks in C at a quarter of a regex search's cost."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_copy(value: Any, depth: int) -> Any:
    """A copy of ``value`` if it is JSON data as JSON would return it, else ``_NOT_PLAIN``."""
    kind = type(value)
    if kind is str:
        return value if _plain_str(value) else _NOT_PLAIN
    if kind is bool or value is None:
        return value
    if kind is int:
        return value if value.bit_length() <= _PLAIN_INT_BITS else _NOT_PLAIN
    if kind is float:
        return value if math.isfinite(value) else _NOT_PLAIN
    if depth >= _PLAIN_DEPTH:
        return _NOT_PLAIN
    if kind is list:
        if all(type(item) is str for item in value):  # a page's lines: one check, in C
            return list(value) if _plain_str("".join(value)) else _NOT_PLAIN
        items = []
        for item in value:
            copied = _plain_copy(item, depth + 1)
            if copied is _NOT_PLAIN:
                return _NOT_PLAIN
            items.append(copied)
        return items
    if kind is dict:
        table = {}
        for key, item in value.items():
            copied = _plain_copy(item, depth + 1)
            if type(key) is not str or copied is _NOT_PLAIN:
                return _NOT_PLAIN
            table[key] = copied
        return table
    return _NOT_PLAIN


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxtuple = 4, 10, 10, 10
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 80


def _short(value: Any, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters, never rendering a huge or deeply nested
    value whole."""
    if isinstance(value, str):
        text = repr(value[:width])
    else:
        try:
            text = _REPR.repr(value)
        except (ValueError, RecursionError):  # an int too long to render
            text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation: what the kit asks, in canonical names."""

    tool: str
    arguments: Any
    cwd: str
    env: Mapping[str, str] | None = None

    def to_wire(self) -> dict[str, Any]:
        """The ``call`` params, normalised as JSON would carry them."""
        wire: dict[str, Any] = {"tool": self.tool, "arguments": self.arguments, "cwd": self.cwd}
        if self.env is not None:
            wire["env"] = dict(self.env)
        normal: dict[str, Any] = wire_value(wire, what=f"the arguments of {self.describe()}")
        return normal

    def describe(self) -> str:
        """A one-line rendering for error messages, long values shortened (and bounded however
        long or deeply nested a value is)."""
        tool = _short(self.tool) if not isinstance(self.tool, str) else self.tool
        tool = tool if len(tool) <= 60 else tool[:57] + "..."
        if not isinstance(self.arguments, Mapping):
            return f"{tool}(<arguments {_short(self.arguments)}>)"
        parts = [
            f"{key if isinstance(key, str) and len(key) <= 30 else _short(key, 30)}={_short(v)}"
            for key, v in self.arguments.items()
        ]
        return f"{tool}({', '.join(parts)})"


@dataclass(frozen=True)
class ToolResult:
    """An MCP-shaped result. Errors are results with ``is_error`` set, never exceptions.

    ``call`` is the call that produced it (set by the client), so that the ``observation``
    can be parsed for the right tool and every failure message can show the call.
    """

    content: tuple[Mapping[str, Any], ...]
    is_error: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)
    call: ToolCall | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        """All text blocks joined by newlines: what a model would read."""
        return "\n".join(str(b["text"]) for b in self.content if b.get("type") == "text")

    @property
    def images(self) -> list[tuple[str, bytes]]:
        """``(mimeType, decoded bytes)`` for every image block."""
        return [
            (str(b["mimeType"]), base64.b64decode(str(b["data"])))
            for b in self.content
            if b.get("type") == "image"
        ]

    @property
    def has_observation(self) -> bool:
        return isinstance(self.details.get("observation"), Mapping)

    @property
    def observation(self) -> Observation:
        """``details.observation``, parsed for the call's tool; ContractViolation if absent."""
        tool = self.call.tool if self.call else "?"
        where = self.call.describe() if self.call else "this result"
        raw = self.details.get("observation")
        if raw is None:
            state = "error" if self.is_error else "success"
            raise ContractViolation(
                f"the {state} result of {where} carries no details.observation; "
                f"{PROTOCOL} requires one (docs/adapter-protocol.md, Observations). "
                f"Text: {self.text[:300]!r}"
            )
        return parse_observation(tool, raw, where=f"details.observation of {where}")

    def with_call(self, call: ToolCall) -> ToolResult:
        return ToolResult(self.content, self.is_error, self.details, call)

    def to_wire(self) -> dict[str, Any]:
        return {
            "content": [dict(b) for b in self.content],
            "isError": self.is_error,
            "details": dict(self.details),
        }

    @classmethod
    def from_wire(cls, value: Any) -> ToolResult:
        """Validate an implementation's answer; raise ContractViolation saying what is wrong."""
        if not isinstance(value, Mapping):
            raise ContractViolation(f"a result must be an object, got {type(value).__name__}")
        content = value.get("content")
        if not isinstance(content, list):
            raise ContractViolation(f"result.content must be a list, got {content!r:.80}")
        blocks: list[Mapping[str, Any]] = []
        for i, block in enumerate(content):
            if not isinstance(block, Mapping):
                raise ContractViolation(f"result.content[{i}] must be an object")
            kind = block.get("type")
            if kind == "text":
                if not isinstance(block.get("text"), str):
                    raise ContractViolation(f"result.content[{i}].text must be a string")
            elif kind == "image":
                if not isinstance(block.get("data"), str) or not isinstance(
                    block.get("mimeType"), str
                ):
                    raise ContractViolation(
                        f"result.content[{i}] (image) needs string 'data' and 'mimeType'"
                    )
            else:
                raise ContractViolation(
                    f"result.content[{i}].type must be 'text' or 'image', got {kind!r}"
                )
            blocks.append(block)
        is_error = value.get("isError", False)
        if not isinstance(is_error, bool):
            raise ContractViolation(f"result.isError must be a boolean, got {is_error!r}")
        details = value.get("details") or {}
        if not isinstance(details, Mapping):
            raise ContractViolation("result.details must be an object when present")
        return cls(content=tuple(blocks), is_error=is_error, details=dict(details))


@dataclass(frozen=True)
class Limit:
    """A declared limit: its value in ``unit`` (``bytes``, ``chars``, ``lines`` ...)."""

    name: str
    value: int | float
    unit: str

    def to_wire(self, default_unit: str) -> Any:
        if self.unit == default_unit:
            return self.value
        return {"value": self.value, "unit": self.unit}


@dataclass(frozen=True)
class Manifest:
    """What an implementation declares about itself; the suite tests against these values.

    ``dialect`` holds where correct tools legitimately differ: ``arguments`` (the
    implementation's own name for a canonical argument, ``"read.offset" = "start_line"``, used
    when judging whether an error names the argument), ``offset_base`` (per tool, the number
    its own text gives the first line or result: read 1, grep and glob 0 by default) and
    ``glob`` (the pattern dialect: gitignore, bash or minimatch) and ``session_env`` (the
    variable names of the session facts a command sees, ``session_id = "PI_SESSION_ID"``).
    """

    name: str
    version: str
    protocol: str = PROTOCOL
    spec_version: str = SPEC_VERSION
    tools: frozenset[str] = frozenset()
    features: frozenset[str] = frozenset()
    output: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Limit] = field(default_factory=dict)
    settings: frozenset[str] = frozenset()
    dialect: Mapping[str, Any] = field(default_factory=dict)

    def has_tool(self, tool: str) -> bool:
        return tool in self.tools

    def has_feature(self, feature: str) -> bool:
        return feature in self.features

    def limit(self, name: str) -> Limit | None:
        """The declared limit, or None: the suite then probes it with hostile input."""
        return self.limits.get(name)

    def argument_name(self, tool: str, canonical: str) -> str:
        """What the implementation calls a canonical argument (in its texts and schema)."""
        names = self.dialect.get("arguments", {})
        return str(names.get(f"{tool}.{canonical}", canonical))

    def offset_base(self, tool: str) -> int:
        bases = self.dialect.get("offset_base", {})
        return int(bases.get(tool, DEFAULT_OFFSET_BASE.get(tool, 1)))

    @property
    def session_env(self) -> dict[str, str]:
        """The session variables the implementation injects: fact -> its variable name."""
        return dict(self.dialect.get("session_env", {}))

    @property
    def glob_dialect(self) -> str:
        return str(self.dialect.get("glob", "gitignore"))

    @property
    def line_numbers(self) -> str:
        return str(self.output.get("line_numbers", "none"))

    @property
    def line_number_style(self) -> LineNumberStyle:
        """The declared style's entry in ``LINE_NUMBER_STYLE`` (checked when loaded)."""
        return LINE_NUMBER_STYLE[self.line_numbers]

    @property
    def output_profile(self) -> str | None:
        profile = self.output.get("profile")
        return str(profile) if profile else None

    def to_wire(self) -> dict[str, Any]:
        registry = load().limits
        return {
            "name": self.name,
            "version": self.version,
            "protocol": self.protocol,
            "spec_version": self.spec_version,
            "tools": sorted(self.tools),
            "features": sorted(self.features),
            "output": dict(self.output),
            "limits": {
                name: limit.to_wire(registry[name].units[0] if name in registry else limit.unit)
                for name, limit in self.limits.items()
            },
            "settings": sorted(self.settings),
            "dialect": wire_value(self.dialect),
        }

    @classmethod
    def from_wire(cls, value: Any, *, source: str = "initialize") -> Manifest:
        """Build a manifest from JSON or TOML data.

        Unknown keys, feature or limit names, and values of the wrong type are errors that
        name the key and suggest the nearest known name: a typo must not silently skip or
        mis-size a clause.
        """
        spec = load()
        if not isinstance(value, Mapping):
            raise ContractViolation(f"{source}: the manifest must be an object")
        _known_keys(source, "manifest", value, MANIFEST_KEYS)

        def names(key: str) -> frozenset[str]:
            raw = value.get(key, [])
            if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
                raise ContractViolation(f"{source}: manifest.{key} must be a list of strings")
            return frozenset(raw)

        def table(key: str) -> Mapping[str, Any]:
            raw = value.get(key, {})
            if not isinstance(raw, Mapping):
                raise ContractViolation(f"{source}: manifest.{key} must be a table (object)")
            return dict(raw)

        name = value.get("name")
        if not isinstance(name, str) or not name:
            raise ContractViolation(f"{source}: manifest.name must be a non-empty string")
        tools = names("tools")
        unknown = tools - TOOLS
        if unknown:
            raise ContractViolation(
                f"{source}: manifest.tools names unknown tools {sorted(unknown)}; "
                f"canonical tools are {sorted(TOOLS)}"
            )
        features = names("features")
        for feature in sorted(features):
            if feature not in spec.features:
                raise ContractViolation(
                    f"{source}: manifest.features names unknown feature {feature!r}"
                    f"{_suggest(feature, spec.features)}; the known features are listed in "
                    "docs/spec.md, Manifest names"
                )
        output = table("output")
        _known_keys(source, "manifest.output", output, OUTPUT_KEYS)
        style = output.get("line_numbers", "none")
        if style not in LINE_NUMBER_STYLES:
            raise ContractViolation(
                f"{source}: manifest.output.line_numbers must be one of "
                f"{sorted(LINE_NUMBER_STYLES)}, got {style!r}"
            )
        limits = _limits(source, table("limits"))
        settings = names("settings")
        for setting in sorted(settings):
            if (
                setting not in spec.limits
                and setting not in OTHER_SETTINGS
                and not setting.startswith(PRIVATE_PREFIX)
            ):
                raise ContractViolation(
                    f"{source}: manifest.settings names {setting!r}, which is not a known limit"
                    f"{_suggest(setting, spec.limits)}; settings are limit names that configure "
                    "may change"
                )
        dialect = _dialect(source, table("dialect"))
        if "bash.session_env" in features and "session_id" not in dialect["session_env"]:
            raise ContractViolation(
                f"{source}: manifest.features declares bash.session_env, so "
                "manifest.dialect.session_env must name the session id's variable, e.g. "
                '{session_id = "PI_SESSION_ID"}'
            )
        protocol = str(value.get("protocol", PROTOCOL))
        return cls(
            name=name,
            version=str(value.get("version", "unknown")),
            protocol=protocol,
            spec_version=str(value.get("spec_version", SPEC_VERSION)),
            tools=tools,
            features=features,
            output=output,
            limits=limits,
            settings=settings,
            dialect=dialect,
        )

    def merged_with(self, override: Mapping[str, Any]) -> Manifest:
        """Apply a manifest file on top of what the implementation said (file wins per key;
        ``output``, ``limits`` and ``dialect`` merge key by key)."""
        base = self.to_wire()
        for key, value in override.items():
            if key in ("output", "limits", "dialect") and isinstance(value, Mapping):
                base[key] = {**base[key], **value}
            else:
                base[key] = value
        return Manifest.from_wire(base, source="manifest file")


def merge_manifest(answer: Any, override: Mapping[str, Any] | None, *, source: str) -> Manifest:
    """The manifest of an ``initialize`` answer, with a manifest file laid over it.

    Every adapter kind ends its start-up here, so a manifest means the same thing however the
    implementation is reached. Raises ContractViolation when neither gives a manifest.
    """
    raw = answer.get("manifest") if isinstance(answer, Mapping) else None
    if isinstance(raw, Mapping):
        manifest = Manifest.from_wire(raw, source=source)
        return manifest.merged_with(override) if override else manifest
    if override:
        return Manifest.from_wire(override, source="manifest file")
    raise ContractViolation(
        f"{source}: initialize returned no manifest and no --agenttools-manifest file was "
        "given; declare the tools, features and limits one way or the other"
    )


def _known_keys(source: str, where: str, table: Mapping[str, Any], known: frozenset[str]) -> None:
    for key in table:
        if key not in known:
            raise ContractViolation(
                f"{source}: {where} has unknown key {key!r}{_suggest(key, known)}; "
                f"known keys: {', '.join(sorted(known))}"
            )


def _suggest(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _limits(source: str, raw: Mapping[str, Any]) -> dict[str, Limit]:
    registry = load().limits
    out: dict[str, Limit] = {}
    for name, declared in raw.items():
        if isinstance(declared, Mapping) and name not in registry and "." not in name:
            # `read.max_lines = 1000` unquoted under [limits] is a nested TOML table
            raise ContractViolation(
                f"{source}: manifest.limits.{name} is a table; quote dotted limit names in TOML "
                f'(`"{name}.{next(iter(declared), "...")}" = ...`)'
            )
        spec = registry.get(name)
        if spec is None and not name.startswith(PRIVATE_PREFIX):
            raise ContractViolation(
                f"{source}: manifest.limits names unknown limit {name!r}"
                f"{_suggest(name, registry)}; the known limits are listed in docs/spec.md, "
                f"Manifest names (prefix your own with {PRIVATE_PREFIX!r})"
            )
        units = spec.units if spec else ("count",)
        value, unit = declared, units[0]
        if isinstance(declared, Mapping):
            extra = set(declared) - {"value", "unit"}
            if extra:
                raise ContractViolation(
                    f"{source}: manifest.limits.{name} has unknown keys {sorted(extra)}; "
                    'use {value = N, unit = "..."}'
                )
            value, unit = declared.get("value"), declared.get("unit", units[0])
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
        ):
            raise ContractViolation(
                f"{source}: manifest.limits.{name} must be a finite number, got {value!r}"
            )
        if value < 0:
            raise ContractViolation(f"{source}: manifest.limits.{name} must be >= 0, got {value}")
        if unit not in units:
            raise ContractViolation(
                f"{source}: manifest.limits.{name} unit {unit!r} is not one of {list(units)}"
            )
        out[name] = Limit(name, value, str(unit))
    return out


def _dialect(source: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    _known_keys(source, "manifest.dialect", raw, DIALECT_KEYS)
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, Mapping) or not all(
        isinstance(k, str) and "." in k and isinstance(v, str) and v for k, v in arguments.items()
    ):
        raise ContractViolation(
            f"{source}: manifest.dialect.arguments maps quoted canonical names to the "
            'implementation\'s own, e.g. {"read.offset" = "start_line"}'
        )
    bases = raw.get("offset_base", {})
    if not isinstance(bases, Mapping) or not all(
        k in DEFAULT_OFFSET_BASE and v in (0, 1) and not isinstance(v, bool)
        for k, v in bases.items()
    ):
        raise ContractViolation(
            f"{source}: manifest.dialect.offset_base maps read, grep or glob to 0 or 1, "
            f"got {bases!r}"
        )
    glob = raw.get("glob", "gitignore")
    if glob in REFUSED_GLOB_DIALECTS:
        raise ContractViolation(
            f"{source}: manifest.dialect.glob = {glob!r} is not a declarable dialect: "
            f"{REFUSED_GLOB_DIALECTS[glob]} Declare one of {sorted(GLOB_DIALECTS)}."
        )
    if glob not in GLOB_DIALECTS:
        raise ContractViolation(
            f"{source}: manifest.dialect.glob must be one of {sorted(GLOB_DIALECTS)}, got {glob!r}"
        )
    session = raw.get("session_env", {})
    if not isinstance(session, Mapping) or not all(
        k in SESSION_ENV_KEYS
        and isinstance(v, str)
        and SESSION_ENV_NAME.fullmatch(v)
        and not v.upper().startswith(KIT_NAMESPACE)
        for k, v in session.items()
    ):
        raise ContractViolation(
            f"{source}: manifest.dialect.session_env maps {', '.join(SESSION_ENV_KEYS)} to "
            f"environment variable names outside {KIT_NAMESPACE}* (the kit's own namespace, "
            f'removed from every command), e.g. {{session_id = "PI_SESSION_ID"}}; got {session!r}'
        )
    return {
        "arguments": dict(arguments),
        "offset_base": dict(bases),
        "glob": glob,
        "session_env": dict(session),
    }
