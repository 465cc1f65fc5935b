"""The ``agenttools`` option group: every flag has an ini twin; the command line wins."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_agenttools.connect.base import Target

# (flag suffix, ini name, help, kind); kind is "string", "bool" or "float"
OPTIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "impl",
        "agenttools_impl",
        "in-process implementation factory, 'package.module:factory'",
        "string",
    ),
    (
        "cmd",
        "agenttools_cmd",
        "command that starts a stdio (JSON-RPC) implementation server",
        "string",
    ),
    (
        "mcp",
        "agenttools_mcp",
        "command that starts an MCP tool server (stdio); needs --agenttools-mcp-mapping. "
        "{tmp} in it stands for the directory the kit makes workspaces in",
        "string",
    ),
    (
        "mcp-mapping",
        "agenttools_mcp_mapping",
        "TOML file mapping canonical tools and arguments to the MCP server's own tools and "
        "arguments, and their answers to observations (docs/mcp-adapter.md)",
        "string",
    ),
    (
        "manifest",
        "agenttools_manifest",
        "TOML manifest file laid over (or standing in for) the implementation's own",
        "string",
    ),
    (
        "expectations",
        "agenttools_expectations",
        "TOML file of expected failures and skips (by clause id or node id)",
        "string",
    ),
    ("report", "agenttools_report", "write the JSON conformance report to this file", "string"),
    (
        "strict",
        "agenttools_strict",
        "fail the run on stale or unmatched expectation entries",
        "bool",
    ),
    ("slow", "agenttools_slow", "also run clauses marked slow", "bool"),
    (
        "call-timeout",
        "agenttools_call_timeout",
        "seconds to wait for one call before the adapter gives up (default 60); no test's "
        "call waits longer",
        "float",
    ),
    (
        "golden-dir",
        "agenttools_golden_dir",
        "directory of golden snapshots (default: the ones shipped with the kit)",
        "string",
    ),
    (
        "tools",
        "agenttools_tools",
        "run only these tools' clauses (comma-separated: read,edit)",
        "string",
    ),
    (
        "features",
        "agenttools_features",
        "run only clauses with one of these features or tags (comma-separated: bom,crlf,read.pdf)",
        "string",
    ),
    (
        "clauses",
        "agenttools_clauses",
        "run only the tests of these clauses (comma-separated ids: EDIT-RA-02,READ-LN-01)",
        "string",
    ),
    (
        "first-failure",
        "agenttools_first_failure",
        "judge each clause until its first failure: later tests of a failed clause are skipped "
        "(not run); enough for a verdict, as the self-check's broken runs need",
        "bool",
    ),
    (
        "hypothesis-profile",
        "agenttools_hypothesis_profile",
        "hypothesis profile of the property suites: ci (default), dev, fuzz, verdict (ci unshrunk)",
        "string",
    ),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenttools", "agent tools conformance")
    for suffix, ini, text, kind in OPTIONS:
        flag = f"--agenttools-{suffix}"
        dest = ini
        if kind == "bool":
            group.addoption(flag, action="store_true", default=None, dest=dest, help=text)
            parser.addini(ini, text, type="bool", default=False)
        else:
            group.addoption(
                flag, action="store", default=None, dest=dest, metavar="VALUE", help=text
            )
            parser.addini(ini, text, default="")


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
    profile = text("agenttools_hypothesis_profile") or "ci"
    if profile not in ("ci", "dev", "fuzz", "verdict"):
        raise pytest.UsageError(
            f"--agenttools-hypothesis-profile={profile!r}: choose ci, dev, fuzz or verdict"
        )
    return Settings(
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
        first_failure=bool(_value(config, "agenttools_first_failure")),
    )
