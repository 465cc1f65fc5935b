"""The ``agenttools`` option group: every flag has an ini twin; the command line wins."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from pytest_agenttools.connect.base import Target

#: the hypothesis profiles of the property suites (conformance/conftest.py registers them)
HYPOTHESIS_PROFILES = ("ci", "dev", "fuzz", "verdict", "quick")
#: how an option's value is read: text, a switch, a number, or a whole number
Kind = Literal["string", "bool", "float", "int"]


@dataclass(frozen=True)
class Option:
    """One option of a run: a pytest flag ``--agenttools-NAME`` with its ini twin
    ``agenttools_NAME`` and, where ``run_flag`` is set, the same option of ``agenttools run``
    (and of ``agenttools call`` with ``call``). Its help is written here once."""

    name: str
    help: str
    kind: Kind = "string"
    #: the flag of ``agenttools run``; None: a pytest option only
    run_flag: str | None = None
    #: also a flag of ``agenttools call`` (the options that say what to reach)
    call: bool = False
    #: one of the options that choose the implementation: at most one of them is given
    chooses_implementation: bool = False
    metavar: str = "VALUE"

    @property
    def flag(self) -> str:
        return "--agenttools-" + self.name.replace("_", "-")

    @property
    def ini(self) -> str:
        return "agenttools_" + self.name


OPTIONS: tuple[Option, ...] = (
    Option(
        "impl",
        "in-process implementation factory, 'package.module:factory' or "
        "'path/to/adapter.py:factory' (default: the bundled reference implementation)",
        run_flag="--impl",
        call=True,
        chooses_implementation=True,
        metavar="FACTORY",
    ),
    Option(
        "cmd",
        "command that starts a stdio (JSON-RPC) implementation server",
        run_flag="--cmd",
        call=True,
        chooses_implementation=True,
        metavar="COMMAND",
    ),
    Option(
        "mcp",
        "command that starts an MCP tool server (stdio); needs the MCP mapping option. "
        "{tmp} in it stands for the directory the kit makes workspaces in",
        run_flag="--mcp",
        call=True,
        chooses_implementation=True,
        metavar="COMMAND",
    ),
    Option(
        "mcp_mapping",
        "TOML file mapping canonical tools and arguments to the MCP server's own tools and "
        "arguments, and their answers to observations (docs/mcp-adapter.md)",
        run_flag="--mcp-mapping",
        call=True,
        metavar="FILE",
    ),
    Option(
        "manifest",
        "TOML manifest file laid over (or standing in for) the implementation's own",
        run_flag="--manifest",
        call=True,
        metavar="FILE",
    ),
    Option(
        "expectations",
        "TOML file of expected failures and skips (by clause id or node id)",
        run_flag="--expectations",
        metavar="FILE",
    ),
    Option(
        "report",
        "write the JSON conformance report to this file",
        run_flag="--report-json",
        metavar="FILE",
    ),
    Option(
        "strict",
        "fail the run on stale or unmatched expectation entries, and on TODO reasons",
        kind="bool",
        run_flag="--strict",
    ),
    Option("slow", "also run clauses marked slow", kind="bool", run_flag="--slow"),
    Option(
        "call_timeout",
        "seconds to wait for one call before the adapter gives up (default 60); no test's "
        "call waits longer",
        kind="float",
        run_flag="--call-timeout",
        metavar="SECONDS",
    ),
    Option(
        "golden_dir",
        "directory of golden snapshots (default: the ones shipped with the kit)",
        metavar="DIR",
    ),
    Option(
        "tools",
        "run only these tools' clauses (comma-separated: read,edit)",
        run_flag="--tools",
        metavar="TOOLS",
    ),
    Option(
        "features",
        "run only clauses with one of these features or tags (comma-separated: bom,crlf,read.pdf)",
        run_flag="--features",
        metavar="FEATURES",
    ),
    Option(
        "clauses",
        "run only the tests of these clauses (comma-separated ids: EDIT-RA-02,READ-LN-01)",
        run_flag="--clauses",
        metavar="IDS",
    ),
    Option(
        "shard",
        "run only shard K of N (e.g. 2/4): every test of a clause in one shard, the same split "
        "on every machine; `agenttools report --merge` joins the shards' JSON reports into the "
        "report of one whole run",
        run_flag="--shard",
        metavar="K/N",
    ),
    Option(
        "first_failure",
        "judge each clause until its first failure: later tests of a failed clause are skipped "
        "(not run); enough for a verdict, as the self-check's broken runs need",
        kind="bool",
    ),
    Option(
        "progress",
        "print a progress line every SECONDS while the suite runs: tests done of the total, the "
        "time elapsed, the test running longest (default: none; `agenttools run` prints one "
        "every 10 s)",
        kind="float",
        metavar="SECONDS",
    ),
    Option(
        "summary_first",
        "print the conformance levels and the clauses that did not pass before pytest's "
        "failure details as well as after them (`agenttools run` does)",
        kind="bool",
    ),
    Option(
        "stress",
        "keep N busy processes per core running for the whole run (started once, by the "
        "run's own process, never by an xdist worker; killed when it ends): a verdict that "
        "differs from a quiet run's depends on the machine's load, which no verdict may",
        kind="int",
        run_flag="--stress",
        metavar="N",
    ),
    Option(
        "hypothesis_profile",
        "hypothesis profile of the property suites: ci (default), dev, fuzz, verdict (ci "
        "unshrunk), quick (5 examples, unshrunk: the default of a quick run)",
        metavar="PROFILE",
    ),
    Option(
        "quick",
        "a first verdict fast: every selected clause judged by its fewest tests (one case of a "
        "parametrized test, 5 examples per property, a test that waits out a timeout only where "
        "its clause has no other, each clause until its first failure); the rest is 'not run in "
        "--quick'. Provisional: the report says quick and awards no conformance level; then "
        "run the full suite",
        kind="bool",
        run_flag="--quick",
    ),
)


def check_options(options: Sequence[Option]) -> None:
    """Names and flags are unique; checked at import, so a table edited wrong fails at once."""
    for what, values in (
        ("names", [o.name for o in options]),
        ("run flags", [o.run_flag for o in options if o.run_flag]),
    ):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"options with the same {what}: {twice}")


check_options(OPTIONS)


def option(name: str) -> Option:
    """The row of ``name``; a name no row has is an error that suggests the nearest."""
    for row in OPTIONS:
        if row.name == name:
            return row
    close = difflib.get_close_matches(name, [o.name for o in OPTIONS], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise KeyError(f"no option {name!r}{hint}")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenttools", "agent tools conformance")
    for row in OPTIONS:
        if row.kind == "bool":
            group.addoption(
                row.flag, action="store_true", default=None, dest=row.ini, help=row.help
            )
            parser.addini(row.ini, row.help, type="bool", default=False)
        else:
            group.addoption(
                row.flag,
                action="store",
                default=None,
                dest=row.ini,
                metavar=row.metavar,
                help=row.help,
            )
            parser.addini(row.ini, row.help, default="")


@dataclass(frozen=True)
class Settings:
    impl: str | None
    cmd: str | None
    mcp: str | None
    mcp_mapping: str | None
    manifest: str | None
    expectations: str | None
    report: str | None
    strict: bool
    slow: bool
    call_timeout: float
    golden_dir: str | None
    hypothesis_profile: str
    tools: str | None = None
    features: str | None = None
    clauses: str | None = None
    first_failure: bool = False
    #: a quick run (``run.quick``): provisional verdicts, no conformance level
    quick: bool = False
    #: every option's value by name, as read (the typed fields above are the kit's own view)
    values: Mapping[str, Any] = field(default_factory=dict)

    def of(self, row: Option) -> Any:
        """The value of one option of the table (None where it was not given)."""
        return self.values.get(row.name)

    def target(self, manifest: Mapping[str, Any] | None) -> Target:
        """What this run reaches, for the adapter kinds (``manifest``: the parsed file)."""
        return Target(
            impl=self.impl,
            cmd=self.cmd,
            mcp=self.mcp,
            mcp_mapping=self.mcp_mapping,
            manifest=manifest,
            call_timeout=self.call_timeout,
        )


def _value(config: pytest.Config, ini: str) -> Any:
    value = config.getoption(ini)
    if value is None:
        value = config.getini(ini)
    return value


def read_settings(config: pytest.Config) -> Settings:
    def text(ini: str) -> str | None:
        value = _value(config, ini)
        return str(value) if value not in (None, "") else None

    impl, cmd = text("agenttools_impl"), text("agenttools_cmd")
    mcp, mcp_mapping = text("agenttools_mcp"), text("agenttools_mcp_mapping")
    chosen = [
        flag
        for flag, value in (
            ("--agenttools-impl", impl),
            ("--agenttools-cmd", cmd),
            ("--agenttools-mcp", mcp),
        )
        if value
    ]
    if len(chosen) > 1:
        raise pytest.UsageError(
            f"{' and '.join(chosen)} given; choose one implementation "
            "(in-process factory, stdio command or MCP server)"
        )
    if mcp and not mcp_mapping:
        raise pytest.UsageError(
            "--agenttools-mcp needs --agenttools-mcp-mapping=FILE.toml: the MCP tool and argument "
            "names of each canonical tool (see docs/mcp-adapter.md)"
        )
    if mcp_mapping and not mcp:
        raise pytest.UsageError(
            "--agenttools-mcp-mapping is only used with --agenttools-mcp=COMMAND"
        )
    raw_timeout = text("agenttools_call_timeout") or "60"
    try:
        call_timeout = float(raw_timeout)
        if not 0 < call_timeout < 86400:
            raise ValueError
    except ValueError:
        raise pytest.UsageError(
            f"--agenttools-call-timeout={raw_timeout!r} must be a number of seconds above 0"
        ) from None
    quick = bool(_value(config, "agenttools_quick"))
    profile = text("agenttools_hypothesis_profile") or ("quick" if quick else "ci")
    if profile not in HYPOTHESIS_PROFILES:
        raise pytest.UsageError(
            f"--agenttools-hypothesis-profile={profile!r}: choose "
            f"{', '.join(HYPOTHESIS_PROFILES[:-1])} or {HYPOTHESIS_PROFILES[-1]}"
        )
    values: dict[str, Any] = {}
    for row in OPTIONS:
        values[row.name] = bool(_value(config, row.ini)) if row.kind == "bool" else text(row.ini)
    values["call_timeout"] = call_timeout
    raw_progress = text("agenttools_progress")
    if raw_progress is not None:
        try:
            values["progress"] = float(raw_progress)
            if not 0 <= values["progress"] < 86400:
                raise ValueError
        except ValueError:
            raise pytest.UsageError(
                f"--agenttools-progress={raw_progress!r} must be a number of seconds (0: none)"
            ) from None
    values["hypothesis_profile"] = profile
    return Settings(
        values=values,
        impl=impl,
        cmd=cmd,
        mcp=mcp,
        mcp_mapping=mcp_mapping,
        manifest=text("agenttools_manifest"),
        expectations=text("agenttools_expectations"),
        report=text("agenttools_report"),
        strict=bool(_value(config, "agenttools_strict")),
        slow=bool(_value(config, "agenttools_slow")),
        call_timeout=call_timeout,
        golden_dir=text("agenttools_golden_dir"),
        hypothesis_profile=profile,
        tools=text("agenttools_tools"),
        features=text("agenttools_features"),
        clauses=text("agenttools_clauses"),
        first_failure=quick or bool(_value(config, "agenttools_first_failure")),
        quick=quick,
    )
