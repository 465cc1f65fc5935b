"""Alternative correct implementations: the reference, presented the way other real tools are.

Each one changes only presentation and dialect (what its text looks like, what it calls its
arguments, the units of its limits, how it refuses what it must not show), each modelled on a
real tool. Every one must pass every clause it is subject to, in process and over stdio; a
clause one of them fails judges the reference's layout, not behaviour. ``agenttools selfcheck``
runs them next to the broken implementations (which must each fail).

One style is one module of this package (``tab_absolute.py`` ...), ending in ``STYLE =
Style(...)`` (``_base.py``) and a ``create()`` factory, which is what ``--agenttools-impl``
names: ``pytest_agenttools.implementations.alternatives.tab_absolute:create``. The per-tool
rewrites, dialects and ports the styles pick from live in ``presenters/``. A module here that
holds no ``Style`` is an error when the table is read.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping

from pytest_agenttools.implementations.alternatives._base import Alternative, Style

#: what is not a style among this package's modules
NOT_STYLES = frozenset({"presenters"})


def _read_styles() -> dict[str, Style]:
    found: dict[str, Style] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in NOT_STYLES:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        style = getattr(module, "STYLE", None)
        if not isinstance(style, Style) or style.name != info.name:
            raise TypeError(
                f"{module.__name__} must define STYLE = Style(name={info.name!r}, ...), "
                f"not {style!r}"
            )
        found[style.name] = style
    return found


#: every style by name, in the order of their names
STYLES: Mapping[str, Style] = dict(sorted(_read_styles().items()))


def alternative_implementations() -> list[str]:
    """The factory specs of every alternative, for ``--agenttools-impl`` and selfcheck."""
    return [f"{__name__}.{name}:create" for name in STYLES]


__all__ = ["STYLES", "Alternative", "Style", "alternative_implementations"]
