"""Alternative correct implementations: the reference, presented the way other real tools are.

Each one changes only presentation and dialect (what its text looks like, what it calls its
arguments, the units of its limits, how it refuses what it must not show), each modelled on a
real tool. Every one must pass every clause it is subject to, in process and over stdio; a
clause one of them fails judges the reference's layout, not behaviour. ``agenttools selfcheck``
runs them next to the broken implementations (which must each fail).

A style is the set of per-tool rewrites in this package's tool modules (``read.py`` ...), each
a ``PRESENT[style]`` function ``(arguments, cwd, result) -> result`` and a ``MANIFEST[style]``
fragment merged over the reference's manifest. The factories below are what
``--agenttools-impl`` names: ``pytest_agenttools.implementations.alternatives:tab_absolute``.
"""

from __future__ import annotations

from pytest_agenttools.implementations.alternatives._base import STYLES, Alternative, Style


def tab_absolute() -> Alternative:
    return Alternative("tab_absolute")


def header_first() -> Alternative:
    return Alternative("header_first")


def raw_text() -> Alternative:
    return Alternative("raw_text")


def renamed_arguments() -> Alternative:
    return Alternative("renamed_arguments")


def refuses_sensitive() -> Alternative:
    return Alternative("refuses_sensitive")


def reworded_errors() -> Alternative:
    return Alternative("reworded_errors")


def char_units() -> Alternative:
    return Alternative("char_units")


def tagged() -> Alternative:
    return Alternative("tagged")


def alternative_implementations() -> list[str]:
    """The factory specs of every alternative, for ``--agenttools-impl`` and selfcheck."""
    return [f"{__name__}:{name}" for name in STYLES]


__all__ = ["STYLES", "Alternative", "Style", "alternative_implementations"]
