"""Whether a failure's traceback shows the kit's own frames (its harness and adapters).

A module of the kit that a failing test's call goes through (the assertion helpers, the tool
client, the adapters) sets ``__tracebackhide__ = kit_frame``; pytest asks it for each of the
module's frames. They are hidden when the run asked for short tracebacks (``--tb=short`` or
``--tb=line``, which ``agenttools run`` passes unless ``-v`` or a ``--tb`` of the caller's),
so a failure shows the test's lines and the assertion; ``--tb=long`` and ``--full-trace`` show
every frame.
"""

from __future__ import annotations

_hidden = False


def hide_kit_frames(hide: bool) -> None:
    global _hidden
    _hidden = hide


def kit_frame(excinfo: object = None) -> bool:
    """pytest's ``__tracebackhide__`` callable: is a frame of the kit's own hidden."""
    return _hidden


def short_tracebacks(tbstyle: object) -> bool:
    """Whether pytest's ``--tb`` value asks for short tracebacks."""
    return tbstyle in ("short", "line")
