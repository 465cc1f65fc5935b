"""Choose part of the suite by tool and feature tag, and mark items so ``-m`` can do the same.

Every conformance item gets its clause's tool and tags (manifest features and topic tags such as
``bom`` or ``crlf``) as markers, so ``-m "edit and crlf"`` works; ``--agenttools-tools`` and
``--agenttools-features`` deselect the rest, which is what ``agenttools run --tools/--features``
passes on.
"""

from __future__ import annotations

import re

import pytest

from . import markers

SAFE = re.compile(r"[^A-Za-z0-9_]")


def marker_name(tag: str) -> str:
    """``read.pdf`` -> ``read_pdf``: a marker name usable in ``-m`` expressions."""
    return SAFE.sub("_", tag)


def split_list(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


class Selection:
    def __init__(self, config: pytest.Config, tools: str | None, features: str | None) -> None:
        self.config = config
        self.tools = split_list(tools)
        self.features = split_list(features)
        self.registered: set[str] = set()
        if (self.tools or self.features) and hasattr(config.option, "warn_unused_snapshots"):
            # goldens of deselected tests are not stale; syrupy would count them as unused
            config.option.warn_unused_snapshots = True

    def _register(self, name: str) -> None:
        if name not in self.registered:
            self.registered.add(name)
            self.config.addinivalue_line("markers", f"{name}: agenttools tool or feature tag")

    @pytest.hookimpl(tryfirst=True)  # before -m: the markers must be there
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if not any(markers.clause_of(item) for item in items):
            return
        from .clauses import load

        spec = load().by_id()
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            clause = spec.get(markers.clause_of(item) or "")
            if clause is None:
                keep.append(item)
                continue
            tags = {*clause.features, *clause.tags, *markers.features_of(item)}
            for name in {clause.tool, *tags}:
                self._register(marker_name(name))
                item.add_marker(marker_name(name))
            wanted = (not self.tools or clause.tool in self.tools) and (
                not self.features or bool(tags & self.features)
            )
            (keep if wanted else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
