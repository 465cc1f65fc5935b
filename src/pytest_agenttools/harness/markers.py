"""The suite's markers, registered so ``--strict-markers`` runs accept them.

Short aliases for test modules: ``clause("READ-LN-01")``, ``feature("read.pdf")``, ``slow``,
``profile("agenttools-reference/1")``, ``long(10)``.
"""

from __future__ import annotations

import pytest

CLAUSE = "agenttools_clause"
FEATURE = "agenttools_feature"
SLOW = "agenttools_slow"
PROFILE = "agenttools_profile"
LONG = "agenttools_long"

DESCRIPTIONS = {
    CLAUSE: f"{CLAUSE}(id): the spec clause this test checks (docs/spec.md).",
    FEATURE: f"{FEATURE}(*names): skip unless the implementation declares every named feature.",
    SLOW: f"{SLOW}: slow, opt-in with --agenttools-slow.",
    PROFILE: f"{PROFILE}(name): golden output of one output profile; skipped for others.",
    LONG: (
        f"{LONG}(seconds): the test takes about this long even against a quick implementation"
        " (it waits out timeouts and kill graces); long tests start first, longest first."
    ),
}

clause = getattr(pytest.mark, CLAUSE)
feature = getattr(pytest.mark, FEATURE)
slow = getattr(pytest.mark, SLOW)
profile = getattr(pytest.mark, PROFILE)
long = getattr(pytest.mark, LONG)


def register(config: pytest.Config) -> None:
    for text in DESCRIPTIONS.values():
        config.addinivalue_line("markers", text)


def clause_of(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker(CLAUSE)
    return str(marker.args[0]) if marker and marker.args else None


def seconds_of(item: pytest.Item, name: str = LONG) -> float:
    """How long ``item`` is marked to take (``agenttools_long``, or another marker of the same
    shape, such as the kit's own ``kit_long``); 0 when it is not marked."""
    marker = item.get_closest_marker(name)
    return float(marker.args[0]) if marker and marker.args else 0.0


def features_of(item: pytest.Item) -> list[str]:
    return [str(name) for m in item.iter_markers(FEATURE) for name in m.args]
