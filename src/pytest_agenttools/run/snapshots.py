"""Golden snapshots of exact output, stored with the kit and relocatable.

Goldens are read from the suite's ``__snapshots__`` directory inside the installed package.
``--snapshot-update`` must never write into site-packages, so updating requires
``--agenttools-golden-dir`` (for the kit's own goldens: ``conformance/__snapshots__`` in a
checkout); reading can use it too, for an implementation that keeps goldens of its own profile.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

INSTALLED = re.compile(r"[/\\](site|dist)-packages[/\\]")


def golden_root(config: pytest.Config) -> Path:
    from pytest_agenttools.run.session import get_session
    from pytest_agenttools.spec.clauses import suite_dir

    chosen = get_session(config).settings.golden_dir
    root = Path(chosen).resolve() if chosen else suite_dir() / "__snapshots__"
    updating = bool(getattr(config.option, "update_snapshots", False))
    if updating and not chosen and INSTALLED.search(str(root)):
        raise pytest.UsageError(
            f"--snapshot-update would write into the installed kit ({root}); pass "
            "--agenttools-golden-dir DIR (in a checkout of the kit: conformance/__snapshots__)"
        )
    return root


def pytest_collection_finish(session: pytest.Session) -> None:
    """``--collect-only`` runs no test, so syrupy would call every golden unused, fail the run
    and advise deleting them: with the kit's goldens collected, unused goldens are not counted
    (``--snapshot-disable-unused``; older syrupy: ``--snapshot-warn-unused``)."""
    option = session.config.option
    if not option.collectonly or not hasattr(option, "warn_unused_snapshots"):
        return
    if any("agenttools_golden" in getattr(item, "fixturenames", ()) for item in session.items):
        option.warn_unused_snapshots = True
        if hasattr(option, "disable_unused_snapshots"):
            option.disable_unused_snapshots = True


def mask(text: str, workspace: str) -> str:
    """Replace the per-test workspace path, the one volatile part of a tool's text."""
    return text.replace(workspace, "<workspace>")


@pytest.fixture
def agenttools_golden(snapshot: Any, pytestconfig: pytest.Config) -> Any:
    """A syrupy snapshot (single-file JSON) compared against the kit's goldens."""
    return snapshot.use_extension(golden_extension(golden_root(pytestconfig)))


#: one extension class per golden root: syrupy keys its discovery of the stored goldens by the
#: extension class, so a class made per test would have every golden file read again per test
_EXTENSIONS: dict[Path, type] = {}


def golden_extension(root: Path) -> type:
    """The syrupy extension class that stores goldens under ``root`` (one class per root)."""
    found = _EXTENSIONS.get(root)
    if found is None:
        from syrupy.extensions.json import JSONSnapshotExtension

        class GoldenExtension(JSONSnapshotExtension):
            @classmethod
            def dirname(cls, *, test_location: Any) -> str:
                return str(root / test_location.basename)

        found = _EXTENSIONS[root] = GoldenExtension
    return found
