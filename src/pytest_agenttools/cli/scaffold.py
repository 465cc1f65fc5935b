"""``agenttools init``: a runnable adapter skeleton in Python, Node.js or Go.

The skeleton speaks the whole protocol correctly (initialize, configure, call, shutdown,
cancellation, malformed lines and ids, end of input) and declares no tools, so a first run
passes honestly: every tool clause is "not run: tool not declared", and nothing the skeleton
does is wrong. It carries a stub handler for every canonical tool that answers a clear error
result (with the observation where the protocol requires one even for errors), so that
declaring a tool before writing it fails that tool's clauses rather than crashing. The
templates live in ``templates/``; ``__NAME__`` stands for the adapter's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

PLACEHOLDER = "__NAME__"
#: the page of MUST clauses that surprise implementers (docs/what-the-suite-asks.md), written
#: beside each skeleton's README so that a user of the installed kit has it too
ASKS = "WHAT-THE-SUITE-ASKS.md"
ASKS_TEMPLATE = "what-the-suite-asks.md.tmpl"
DEFAULT_NAME = "mytools"


class ScaffoldError(Exception):
    """The skeleton cannot be written (unknown language, files in the way)."""


@dataclass(frozen=True)
class Skeleton:
    """One language: the files it writes (target name -> template) and how to run it."""

    language: str
    files: tuple[tuple[str, str], ...]
    run: str
    build: str = ""

    def commands(self, name: str) -> list[str]:
        """The shell commands that run the skeleton, from its directory."""
        steps = [self.build, self.run] if self.build else [self.run]
        return [step.replace(PLACEHOLDER, name) for step in steps]


SKELETONS: dict[str, Skeleton] = {
    "python": Skeleton(
        "python",
        (
            ("adapter.py", "python/adapter.py.tmpl"),
            ("README.md", "python/README.md.tmpl"),
            ("expectations.toml", "expectations.toml.tmpl"),
            (ASKS, ASKS_TEMPLATE),
        ),
        run="agenttools run --impl adapter.py:create",
    ),
    "node": Skeleton(
        "node",
        (
            ("server.mjs", "node/server.mjs.tmpl"),
            ("README.md", "node/README.md.tmpl"),
            ("expectations.toml", "expectations.toml.tmpl"),
            (ASKS, ASKS_TEMPLATE),
        ),
        run='agenttools run --cmd "node server.mjs"',
    ),
    "go": Skeleton(
        "go",
        (
            ("main.go", "go/main.go.tmpl"),
            ("go.mod", "go/go.mod.tmpl"),
            ("README.md", "go/README.md.tmpl"),
            ("expectations.toml", "expectations.toml.tmpl"),
            (ASKS, ASKS_TEMPLATE),
        ),
        build=f"go build -o {PLACEHOLDER}-adapter .",
        run=f"agenttools run --cmd ./{PLACEHOLDER}-adapter",
    ),
}


def adapter_name(directory: Path) -> str:
    """A name for the implementation from its directory: lower case, letters, digits, ``-``."""
    name = re.sub(r"[^a-z0-9-]+", "-", directory.resolve().name.lower()).strip("-")
    return name if name and name[0].isalpha() else DEFAULT_NAME


def template(path: str) -> str:
    return (resources.files("pytest_agenttools.cli") / "templates" / path).read_text(
        encoding="utf-8"
    )


def write_skeleton(language: str, directory: Path, name: str | None = None) -> list[Path]:
    """Write the skeleton of ``language`` into ``directory``; never overwrites a file."""
    skeleton = SKELETONS.get(language)
    if skeleton is None:
        raise ScaffoldError(f"unknown language {language!r}; choose {', '.join(SKELETONS)}")
    chosen = name or adapter_name(directory)
    if not re.fullmatch(r"[a-z][a-z0-9-]*", chosen):
        raise ScaffoldError(
            f"name {chosen!r}: use lower-case letters, digits and '-', starting with a letter"
        )
    targets = [directory / target for target, _ in skeleton.files]
    existing = [str(t) for t in targets if t.exists()]
    if existing:
        raise ScaffoldError(
            f"{', '.join(existing)} already exist(s); choose an empty directory (init never "
            "overwrites a file)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    for target, (_, source) in zip(targets, skeleton.files, strict=True):
        target.write_text(template(source).replace(PLACEHOLDER, chosen), encoding="utf-8")
    return targets
