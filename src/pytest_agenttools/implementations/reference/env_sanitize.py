"""The environment a command sees: two layers of removal, and the names removed (never values).

Layer A always runs: it removes the implementation's own boundary variables (``AGENTTOOLS_*``
session identity, data directory, ports), so a nested command can neither pose as the host nor
bind to it. Layer B depends on a mode: ``off`` keeps everything else; ``scrub`` removes a fixed
list of credentials (each also as its GitHub Actions ``INPUT_`` alias) while keeping the
``GH_TOKEN``/``GITHUB_TOKEN``/``NPM_TOKEN`` that interactive tools rely on; ``strict`` removes
every name that looks like a credential, except system names and an allowlist.

The mode comes from an explicit setting, then ``AGENTTOOLS_BASH_ENV_SANITIZE`` in the inherited
environment, then CI flags (``CI`` or ``GITHUB_ACTIONS`` set to anything but 0/false/no/off or
empty) meaning ``scrub``, else ``off``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MODES = ("off", "scrub", "strict")
MODE_VARIABLE = "AGENTTOOLS_BASH_ENV_SANITIZE"
ALLOW_VARIABLE = "AGENTTOOLS_BASH_ENV_ALLOW"

#: layer A: the implementation's own boundary (the mode variable itself stays visible)
BOUNDARY_PREFIX = "AGENTTOOLS_"
BOUNDARY_KEEP = frozenset({MODE_VARIABLE, ALLOW_VARIABLE})

SCRUB_NAMES: tuple[str, ...] = (
    "AGENTTOOLS_PROVIDER_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OPENAI_API_KEY",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "FIGMA_API_TOKEN",
    "FIGMA_TOKEN",
    "E2E_AUTH_TOKEN",
)
SCRUB_SET = frozenset(SCRUB_NAMES) | frozenset(f"INPUT_{name}" for name in SCRUB_NAMES)
#: kept on purpose under scrub (interactive CLIs depend on them)
SCRUB_KEPT = ("GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN")

STRICT_PATTERN = re.compile(
    r"(^|_)(API_?KEY|KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_?KEY)S?(_|$)",
    re.IGNORECASE,
)
PROTECTED = frozenset(
    {"PATH", "HOME", "SHELL", "LANG", "LOGNAME", "USER", "TERM", "TMPDIR", "TEMP", "TMP"}
)
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


class InvalidMode(ValueError):
    """A mode name that is not off, scrub or strict."""


@dataclass(frozen=True)
class Sanitized:
    env: dict[str, str]
    mode: str
    removed: tuple[str, ...]


def truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in FALSE_WORDS


def choose_mode(explicit: str | None, env: Mapping[str, str]) -> str:
    """BASH-ENV-02: explicit setting, then the mode variable, then CI flags (scrub), else off.
    BASH-ENV-07: a value that is no mode raises InvalidMode (the command is refused), never
    falls through."""
    for source, value in (("setting", explicit), (MODE_VARIABLE, env.get(MODE_VARIABLE))):
        if value is not None and value.strip():
            mode = value.strip().lower()
            if mode not in MODES:
                raise InvalidMode(f"{source} gives env sanitize mode {value!r}; use one of {MODES}")
            return mode
    if truthy(env.get("CI")) or truthy(env.get("GITHUB_ACTIONS")):
        return "scrub"
    return "off"


def _protected(name: str) -> bool:
    return name.upper() in PROTECTED or name.upper().startswith("LC_")


def sanitize(
    env: Mapping[str, str], explicit: str | None = None, allow: Iterable[str] = ()
) -> Sanitized:
    """The child's environment, the mode used, and the sorted names removed by either layer.

    BASH-ENV-01 (layer A), BASH-ENV-03 (scrub), BASH-ENV-04 (strict); the lists are the spec's
    tables ``bash.env_*`` (a kit test keeps them equal)."""
    mode = choose_mode(explicit, env)
    allowed = {name.upper() for name in allow}
    allowed |= {n.strip().upper() for n in env.get(ALLOW_VARIABLE, "").split(",") if n.strip()}
    kept: dict[str, str] = {}
    removed: list[str] = []
    for name, value in env.items():
        if name.startswith(BOUNDARY_PREFIX) and name not in BOUNDARY_KEEP:
            drop = True
        elif mode == "scrub":
            drop = name in SCRUB_SET
        elif mode == "strict":
            drop = (
                (name in SCRUB_SET or bool(STRICT_PATTERN.search(name)))
                and not _protected(name)
                and name.upper() not in allowed
            )
        else:
            drop = False
        if drop:
            removed.append(name)
        else:
            kept[name] = value
    return Sanitized(kept, mode, tuple(sorted(removed)))


def prepend_path(env: dict[str, str], directories: Iterable[str]) -> None:
    """Put absolute ``directories`` first on PATH, once each, keeping the rest in order."""
    front = [d for d in dict.fromkeys(directories) if d.startswith("/")]
    rest = [d for d in env.get("PATH", "").split(":") if d and d not in front]
    env["PATH"] = ":".join([*front, *rest])
