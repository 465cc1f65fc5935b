"""The mapping file of the MCP adapter: how canonical calls become a server's ``tools/call``.

A TOML file (``docs/mcp-adapter.md``, "The mapping file") with a ``[manifest]``, a ``[server]``
table (private HOME, launch directory), one ``[tools.NAME]`` table per canonical tool (target
names, paths, defaults, fixed values, value transforms, the call's ``env``, and a ``result``
table that post-processes the answer and names the observation builder), an optional
``[configure]`` table routing the kit's settings to the server's own configuration tool, and an
optional ``script``: a Python module of mapping functions for what a table cannot say.

Everything is validated strictly when the file is loaded: an unknown key, transform, builder or a
malformed value is an error that names the file and the key, never a silently ignored line.
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_agenttools.connect.mcp.transforms import Context, Spread, Transform, parse_transform
from pytest_agenttools.harness.contract import TOOLS
from pytest_agenttools.spec import observation_schema

#: observation keys per tool (spec/observations.toml); json_fields maps onto these only
OBSERVATION_KEYS: Mapping[str, frozenset[str]] = observation_schema.all_keys()
FIELD_RULE_KEYS = frozenset({"field", "in", "not_in", "default", "argument", "value", "join"})

CWD_PLACEHOLDER = "{cwd}"
TMP_PLACEHOLDER = "{tmp}"
PLACEHOLDERS = (CWD_PLACEHOLDER, TMP_PLACEHOLDER)

MAPPING_KEYS = frozenset({"manifest", "tools", "server", "configure", "script"})
TOOL_KEYS = frozenset(
    {"tool", "arguments", "paths", "drop", "fixed", "defaults", "items", "transforms", "env"}
    | {"result"}
)
RESULT_KEYS = frozenset(
    {"observation", "fields", "strip", "line_prefix", "empty", "is_error", "continuation"}
    | {"json_rpc_errors", "complete_unless"}
)
SERVER_KEYS = frozenset({"home", "directory"})
#: where a server starts: a private temp dir, where the kit runs, or (one server per workspace)
#: in the test's workspace, as ``{cwd}`` in the command does
SERVER_DIRECTORIES = ("private", "inherit", "workspace")
CONFIGURE_KEYS = frozenset({"tool", "arguments", "transforms", "fixed"})
IS_ERROR_KEYS = frozenset({"text", "field", "in", "not_in"})
CONTINUATION_KEYS = frozenset({"pattern", "base"})
#: the observation builders a ``result.observation`` may name (mcp_results.BUILDERS)
BUILDER_NAMES = (
    "text_lines", "written", "edited", "path_lines", "json_fields", "structured", "none"
)  # fmt: skip
#: what each builder is for (a builder names the tool whose shape it makes)
BUILDER_TOOLS: Mapping[str, frozenset[str]] = {
    "text_lines": frozenset({"read"}),
    "written": frozenset({"write"}),
    "edited": frozenset({"edit"}),
    "path_lines": frozenset({"grep", "glob"}),
    "json_fields": frozenset(TOOLS),
    "structured": frozenset(TOOLS),
    "none": frozenset(TOOLS),
}
_SEGMENT = re.compile(r"^(?P<name>[^.\[\]]+)(?P<indexes>(?:\[\d+\])*)$")


def parse_target(target: str) -> tuple[str | int, ...]:
    """``edits[0].oldText`` -> ``("edits", 0, "oldText")``; ValueError says what is wrong."""
    steps: list[str | int] = []
    for segment in target.split("."):
        match = _SEGMENT.match(segment)
        if not match:
            raise ValueError(
                f"bad target {target!r}: use names joined by '.', each optionally followed by "
                "list indexes like [0] (for example 'edits[0].oldText')"
            )
        steps.append(match["name"])
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", match["indexes"]))
    return tuple(steps)


class TranslationConflict(Exception):
    """Two canonical arguments would write the same MCP value."""


_HOLE = object()  # a list slot no argument has filled (sent as null)


def _place(
    root: dict[str, Any],
    steps: tuple[str | int, ...],
    value: Any,
    owner: str,
    owners: dict[Any, str],
) -> None:
    for other_steps, other in owners.items():
        shorter = min(len(steps), len(other_steps))
        if steps[:shorter] == other_steps[:shorter]:
            raise TranslationConflict(f"{other} and {owner}")
    node: Any = root
    for step, following in itertools.pairwise(steps):
        fresh: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            if not isinstance(node, list):
                raise TranslationConflict(f"{owner} and an argument that is not a list")
            node.extend([_HOLE] * (step + 1 - len(node)))
            if node[step] is _HOLE:
                node[step] = fresh
            node = node[step]
        else:
            if not isinstance(node, dict):
                raise TranslationConflict(f"{owner} and an argument that is not an object")
            node = node.setdefault(step, fresh)
        if type(node) is not type(fresh):
            raise TranslationConflict(f"{owner} and an argument of another shape")
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list):
            raise TranslationConflict(f"{owner} and an argument that is not a list")
        node.extend([_HOLE] * (last + 1 - len(node)))
        node[last] = value
    else:
        if not isinstance(node, dict):
            raise TranslationConflict(f"{owner} and an argument that is not an object")
        node[last] = value
    owners[steps] = owner


def _fill_holes(value: Any) -> Any:
    if isinstance(value, list):
        return [None if v is _HOLE else _fill_holes(v) for v in value]
    if isinstance(value, dict):
        return {k: _fill_holes(v) for k, v in value.items()}
    return value


def expand(value: Any, cwd: str, tmp: str) -> Any:
    """``{cwd}`` and ``{tmp}`` replaced in every string inside ``value``."""
    if isinstance(value, str):
        return value.replace(CWD_PLACEHOLDER, cwd).replace(TMP_PLACEHOLDER, tmp)
    if isinstance(value, list):
        return [expand(v, cwd, tmp) for v in value]
    if isinstance(value, Mapping):
        return {k: expand(v, cwd, tmp) for k, v in value.items()}
    return value


def _mentions_cwd(value: Any) -> bool:
    if isinstance(value, str):
        return CWD_PLACEHOLDER in value
    if isinstance(value, list):
        return any(_mentions_cwd(v) for v in value)
    if isinstance(value, Mapping):
        return any(_mentions_cwd(v) for v in value.values())
    return False


@dataclass(frozen=True)
class IsErrorRule:
    """When a success answer is really a failure: a text pattern, or a JSON field's value."""

    text: re.Pattern[str] | None = None
    field: tuple[str | int, ...] | None = None
    values: tuple[Any, ...] = ()
    negated: bool = False


@dataclass(frozen=True)
class Continuation:
    """A pattern whose first group is the offset to continue from, in the server's ``base``."""

    pattern: re.Pattern[str]
    base: int = 1


@dataclass(frozen=True)
class ResultSpec:
    """How an answer is post-processed and which builder makes its observation."""

    observation: str = "none"
    fields: Mapping[str, Any] = field(default_factory=dict)
    strip: tuple[re.Pattern[str], ...] = ()
    line_prefix: re.Pattern[str] | None = None
    empty: re.Pattern[str] | None = None
    is_error: tuple[IsErrorRule, ...] = ()
    continuation: Continuation | None = None
    json_rpc_errors: str = "fault"
    #: text_lines: MCP arguments that limit a read; when none was sent (and no continuation is
    #: announced), the text is the whole file and total_lines is known
    complete_unless: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ToolMapping:
    """How one canonical tool becomes one MCP ``tools/call``."""

    canonical: str
    tool: str
    arguments: Mapping[str, tuple[str | int, ...]] = field(default_factory=dict)
    paths: frozenset[str] = frozenset()
    drop: frozenset[str] = frozenset()
    fixed: Mapping[str, Any] | None = None
    defaults: Mapping[str, Any] | None = None
    items: Mapping[str, Mapping[str, str]] | None = None
    transforms: Mapping[str, Transform] | None = None
    env: tuple[str | int, ...] | None = None
    result: ResultSpec = field(default_factory=ResultSpec)

    @property
    def sends_cwd(self) -> bool:
        """Whether some argument carries the call's ``cwd`` (a ``{cwd}`` fixed or default)."""
        return _mentions_cwd(self.fixed or {}) or _mentions_cwd(self.defaults or {})

    def translate(
        self,
        arguments: Mapping[str, Any],
        cwd: str,
        *,
        tmp: str = "",
        env: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Canonical arguments, in the call's order, to MCP arguments (or TranslationConflict).

        Order: a relative path is resolved, ``items`` renames apply, the transform runs, the
        value is placed at its target; then ``defaults`` fill what is still absent, ``fixed``
        values win over everything, and the call's ``env`` goes to the ``env`` target.
        """
        out: dict[str, Any] = {}
        owners: dict[Any, str] = {}
        ctx = Context(arguments=arguments, cwd=cwd)
        for name, raw in arguments.items():
            if name in self.drop:
                continue
            value = raw
            if name in self.paths and isinstance(value, str) and value:
                value = os.path.join(cwd, value)
            renames = (self.items or {}).get(name)
            if renames and isinstance(value, list):
                value = [
                    {renames.get(k, k): v for k, v in item.items()}
                    if isinstance(item, Mapping)
                    else item
                    for item in value
                ]
            transform = (self.transforms or {}).get(name)
            if transform is not None:
                value = transform.apply(value, ctx)
            if isinstance(value, Spread):
                for target, part in value.values.items():
                    _place(out, parse_target(target), part, name, owners)
            else:
                _place(out, self.arguments.get(name, (name,)), value, name, owners)
        for key, value in (self.defaults or {}).items():
            if key not in out:
                out[key] = expand(value, cwd, tmp)
        out.update(expand(self.fixed or {}, cwd, tmp))
        if self.env is not None and env is not None:
            _place(out, self.env, dict(env), "the call's env", owners)
        return _fill_holes(out)


@dataclass(frozen=True)
class ConfigureMapping:
    """``configure`` routed to the server's own configuration tool."""

    tool: str
    arguments: Mapping[str, tuple[str | int, ...]]
    transforms: Mapping[str, Transform] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)

    def translate(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        owners: dict[Any, str] = {}
        ctx = Context(arguments=settings, cwd="")
        for name, value in settings.items():
            transform = self.transforms.get(name)
            if transform is not None:
                value = transform.apply(value, ctx)
            if isinstance(value, Spread):
                for target, part in value.values.items():
                    _place(out, parse_target(target), part, name, owners)
            else:
                _place(out, self.arguments[name], value, name, owners)
        out.update(self.fixed)
        return _fill_holes(out)


@dataclass(frozen=True)
class ServerOptions:
    """How servers are started: ``home`` private|inherit, ``directory`` private|inherit|
    workspace."""

    home: str = "private"
    directory: str = "private"


@dataclass(frozen=True)
class McpMapping:
    """A parsed mapping file."""

    source: str
    manifest: Mapping[str, Any]
    tools: Mapping[str, ToolMapping]
    server: ServerOptions = field(default_factory=ServerOptions)
    configure: ConfigureMapping | None = None
    script: str | None = None  # absolute path of the script module, when given
    scripted: frozenset[str] = frozenset()  # canonical tools the script serves


def _strings(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where} must be a list of strings")
    return frozenset(value)


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table")
    return value


def _known(table: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(str(key), list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"{where}: unknown key {key!r}{hint}; known keys: {', '.join(sorted(known))}"
            )


def _regex(value: Any, where: str) -> re.Pattern[str]:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a regular expression (a string)")
    try:
        return re.compile(value, re.MULTILINE)
    except re.error as exc:
        raise ValueError(f"{where}: bad regular expression {value!r}: {exc}") from None


def _targets(raw: Any, where: str) -> dict[str, tuple[str | int, ...]]:
    targets: dict[str, tuple[str | int, ...]] = {}
    for arg, target in _table(raw, where).items():
        if not isinstance(target, str):
            raise ValueError(f"{where}.{arg} must be a string")
        try:
            targets[arg] = parse_target(target)
        except ValueError as exc:
            raise ValueError(f"{where}.{arg}: {exc}") from None
    return targets


def _transforms(raw: Any, where: str) -> dict[str, Transform]:
    return {
        arg: parse_transform(spec, f"{where}.{arg}") for arg, spec in _table(raw, where).items()
    }


def _is_error(raw: Any, where: str) -> tuple[IsErrorRule, ...]:
    rules = raw if isinstance(raw, list) else [raw]
    parsed: list[IsErrorRule] = []
    for i, rule in enumerate(rules):
        here = f"{where}[{i}]" if isinstance(raw, list) else where
        rule = _table(rule, here)
        _known(rule, IS_ERROR_KEYS, here)
        if "text" in rule and "field" not in rule and len(rule) == 1:
            parsed.append(IsErrorRule(text=_regex(rule["text"], f"{here}.text")))
            continue
        if "field" not in rule or "text" in rule:
            raise ValueError(
                f'{here}: give either text = "regex" or field = "json.path" with in = [...] '
                "or not_in = [...]"
            )
        if ("in" in rule) == ("not_in" in rule):
            raise ValueError(f"{here}: a field rule needs exactly one of 'in' and 'not_in'")
        values = rule.get("in", rule.get("not_in"))
        if not isinstance(values, list):
            raise ValueError(f"{here}: 'in'/'not_in' must be a list of values")
        try:
            steps = parse_target(str(rule["field"]))
        except ValueError as exc:
            raise ValueError(f"{here}.field: {exc}") from None
        parsed.append(IsErrorRule(field=steps, values=tuple(values), negated="not_in" in rule))
    return tuple(parsed)


def _result(raw: Any, canonical: str, where: str) -> ResultSpec:
    table = _table(raw, where)
    _known(table, RESULT_KEYS, where)
    builder = table.get("observation", "none")
    if builder not in BUILDER_NAMES:
        close = difflib.get_close_matches(str(builder), BUILDER_NAMES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"{where}.observation: unknown builder {builder!r}{hint}; "
            f"known: {', '.join(BUILDER_NAMES)}"
        )
    if canonical not in BUILDER_TOOLS[builder]:
        raise ValueError(
            f"{where}.observation: builder {builder!r} makes "
            f"{'/'.join(sorted(BUILDER_TOOLS[builder]))} observations, not {canonical}"
        )
    fields = dict(_table(table.get("fields", {}), f"{where}.fields"))
    if fields and builder != "json_fields":
        raise ValueError(f"{where}.fields is only used by the json_fields builder")
    if builder == "json_fields":
        check_fields(fields, canonical, f"{where}.fields")
    strip_raw = table.get("strip", [])
    if isinstance(strip_raw, str):
        strip_raw = [strip_raw]
    if not isinstance(strip_raw, list):
        raise ValueError(f"{where}.strip must be a regular expression or a list of them")
    continuation = None
    if "continuation" in table:
        cont = table["continuation"]
        if isinstance(cont, str):
            cont = {"pattern": cont}
        cont = _table(cont, f"{where}.continuation")
        _known(cont, CONTINUATION_KEYS, f"{where}.continuation")
        pattern = _regex(cont.get("pattern"), f"{where}.continuation.pattern")
        if pattern.groups < 1:
            raise ValueError(f"{where}.continuation.pattern needs a group: the offset's digits")
        base = cont.get("base", 1)
        if base not in (0, 1) or isinstance(base, bool):
            raise ValueError(f"{where}.continuation.base must be 0 or 1")
        continuation = Continuation(pattern, int(base))
    complete = table.get("complete_unless")
    if complete is not None:
        if builder != "text_lines":
            raise ValueError(f"{where}.complete_unless is only used by the text_lines builder")
        complete = tuple(sorted(_strings(complete, f"{where}.complete_unless")))
    rpc = table.get("json_rpc_errors", "fault")
    if rpc not in ("fault", "result"):
        raise ValueError(f"{where}.json_rpc_errors must be 'fault' or 'result'")
    return ResultSpec(
        observation=str(builder),
        fields=fields,
        strip=tuple(_regex(s, f"{where}.strip") for s in strip_raw),
        line_prefix=_regex(table["line_prefix"], f"{where}.line_prefix")
        if "line_prefix" in table
        else None,
        empty=_regex(table["empty"], f"{where}.empty") if "empty" in table else None,
        is_error=_is_error(table["is_error"], f"{where}.is_error") if "is_error" in table else (),
        continuation=continuation,
        json_rpc_errors=str(rpc),
        complete_unless=complete,
    )


def _tool(canonical: str, raw: Any) -> ToolMapping:
    where = f"[tools.{canonical}]"
    if canonical not in TOOLS:
        raise ValueError(f"{where}: {canonical!r} is not a canonical tool ({sorted(TOOLS)})")
    table = _table(raw, where)
    _known(table, TOOL_KEYS, where)
    name = table.get("tool")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: 'tool' (the MCP tool's name) must be a non-empty string")
    items: dict[str, dict[str, str]] = {}
    for arg, renames in _table(table.get("items", {}), f"{where} items").items():
        renames = _table(renames, f"{where} items.{arg}")
        if not all(isinstance(v, str) for v in renames.values()):
            raise ValueError(f"{where} items.{arg}: every value must be a string (a key name)")
        items[arg] = dict(renames)
    env = table.get("env")
    if env is not None and not isinstance(env, str):
        raise ValueError(f"{where} env must be the MCP argument that takes the call's env")
    try:
        env_target = parse_target(env) if env else None
    except ValueError as exc:
        raise ValueError(f"{where} env: {exc}") from None
    return ToolMapping(
        canonical=canonical,
        tool=name,
        arguments=_targets(table.get("arguments", {}), f"{where} arguments"),
        paths=_strings(table.get("paths", []), f"{where} paths"),
        drop=_strings(table.get("drop", []), f"{where} drop"),
        fixed=dict(_table(table.get("fixed", {}), f"{where} fixed")),
        defaults=dict(_table(table.get("defaults", {}), f"{where} defaults")),
        items=items,
        transforms=_transforms(table.get("transforms", {}), f"{where} transforms"),
        env=env_target,
        result=_result(table.get("result", {}), canonical, f"{where} result"),
    )


def parse_mapping(
    data: Mapping[str, Any], source: str = "mapping", base_dir: str | None = None
) -> McpMapping:
    """Validate mapping data (the TOML file, parsed); ValueError names the bad key."""
    _known(data, MAPPING_KEYS, "top level")
    manifest = dict(_table(data.get("manifest", {}), "[manifest]"))
    server_table = _table(data.get("server", {}), "[server]")
    _known(server_table, SERVER_KEYS, "[server]")
    home = server_table.get("home", "private")
    if home not in ("private", "inherit"):
        raise ValueError("[server] home must be 'private' (a fresh temp dir) or 'inherit'")
    directory = server_table.get("directory", "private")
    if directory not in SERVER_DIRECTORIES:
        raise ValueError(
            "[server] directory must be 'private' (a fresh temp dir), 'inherit' (where the kit "
            "runs) or 'workspace' (one server per workspace, started in it)"
        )
    configure = None
    if "configure" in data:
        table = _table(data["configure"], "[configure]")
        _known(table, CONFIGURE_KEYS, "[configure]")
        name = table.get("tool")
        if not isinstance(name, str) or not name:
            raise ValueError("[configure]: 'tool' (the server's configuration tool) is required")
        targets = _targets(table.get("arguments", {}), "[configure] arguments")
        if not targets:
            raise ValueError("[configure] arguments: map at least one setting to an argument")
        transforms = _transforms(table.get("transforms", {}), "[configure] transforms")
        unknown = set(transforms) - set(targets)
        if unknown:
            raise ValueError(f"[configure] transforms name settings not mapped: {sorted(unknown)}")
        configure = ConfigureMapping(
            tool=name,
            arguments=targets,
            transforms=transforms,
            fixed=dict(_table(table.get("fixed", {}), "[configure] fixed")),
        )
    script = data.get("script")
    script_path = None
    if script is not None:
        if not isinstance(script, str) or not script:
            raise ValueError("script must be the path of a Python file (relative to the mapping)")
        script_path = os.path.join(base_dir or os.getcwd(), script)
    tools = {canonical: _tool(canonical, raw) for canonical, raw in _table(
        data.get("tools", {}), "[tools]").items()}  # fmt: skip
    scripted: frozenset[str] = frozenset()
    if script_path is not None:
        from pytest_agenttools.connect.mcp.script import script_tools

        scripted = script_tools(script_path)
    settings = manifest.get("settings")
    if settings is not None:
        declared = set(settings) if isinstance(settings, list) else set()
        routed = set(configure.arguments) if configure else set()
        if "configure" in scripted:
            routed = declared
        if declared - routed:
            raise ValueError(
                f"[manifest] declares settings {sorted(declared - routed)} that no [configure] "
                "argument routes to the server; map them in [configure] arguments or remove them"
            )
    if configure is not None and "configure" in scripted:
        raise ValueError("configure is routed twice: by [configure] and by the script's configure")
    if not tools and not (scripted - {"configure"}):
        raise ValueError("maps no tool: add a [tools.read] (or write, edit, ...) table")
    return McpMapping(
        source=source,
        manifest=manifest,
        tools=tools,
        server=ServerOptions(home=str(home), directory=str(directory)),
        configure=configure,
        script=script_path,
        scripted=frozenset(scripted),
    )


def load_mapping(path: str | os.PathLike[str]) -> McpMapping:
    """Read and validate a mapping file; AdapterError names the file and what is wrong."""
    from pytest_agenttools.connect.base import AdapterError

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AdapterError(f"MCP adapter: no mapping file {str(path)!r}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise AdapterError(
            f"MCP adapter: mapping file {str(path)!r} is not valid TOML: {exc}"
        ) from exc
    try:
        return parse_mapping(
            data, source=str(path), base_dir=os.path.dirname(os.path.abspath(path))
        )
    except ValueError as exc:
        raise AdapterError(f"MCP adapter: mapping file {str(path)!r}: {exc}") from None


def check_fields(fields: Mapping[str, Any], tool: str, where: str) -> None:
    """Validate a ``json_fields`` map: known observation keys, well-formed rules."""
    known = OBSERVATION_KEYS.get(tool, frozenset())
    for key, rule in fields.items():
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{where}: {key!r} is not a {tool} observation key{hint}")
        if isinstance(rule, str):
            parse_target(rule)
        elif isinstance(rule, list):
            if not all(isinstance(r, str) for r in rule):
                raise ValueError(f"{where}.{key}: a list joins JSON fields: give their paths")
            for r in rule:
                parse_target(r)
        elif isinstance(rule, Mapping):
            extra = set(rule) - FIELD_RULE_KEYS
            if extra:
                raise ValueError(f"{where}.{key}: unknown keys {sorted(extra)}")
            sources = [k for k in ("field", "argument", "value") if k in rule]
            if len(sources) != 1:
                raise ValueError(f"{where}.{key}: give exactly one of field, argument, value")
            if ("in" in rule or "not_in" in rule) and "field" not in rule:
                raise ValueError(f"{where}.{key}: 'in'/'not_in' test a field")
            if "field" in rule:
                parse_target(str(rule["field"]))
        else:
            raise ValueError(f"{where}.{key}: give a JSON path, a list of paths or a table")
