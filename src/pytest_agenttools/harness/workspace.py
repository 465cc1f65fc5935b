"""A fresh directory per test, and the harness's own view of the bytes in it.

Conformance tests check effects here, on the real file system, never through the
implementation's own ``read``. Paths are short (under the system temp dir) so that AF_UNIX
sockets fit, and unique, so parallel workers never share one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_agenttools.harness.scratch import workspace_base


class Workspace:
    """A directory the implementation works in (its ``cwd``) and the test inspects.

    Methods: ``file(rel)`` (absolute Path), ``put(rel, data)`` (write bytes, creating parents),
    ``get(rel)`` (bytes on disk), ``exists(rel)``, ``copy_fixture(name, rel=None)``,
    ``subdir()`` (a fresh, empty sub-workspace: use one per hypothesis example), ``files()``
    (every file below the root, relative, sorted).
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def __str__(self) -> str:
        return str(self.root)

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def file(self, rel: str) -> Path:
        return self.root / rel

    def put(self, rel: str, data: bytes | str) -> Path:
        target = self.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return target

    def get(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.root / rel)

    def copy_fixture(self, name: str, rel: str | None = None) -> Path:
        from pytest_agenttools.fixtures import fixture_path

        source = fixture_path(name)
        target = self.root / (rel or source.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        return target

    def subdir(self) -> Workspace:
        return Workspace(Path(tempfile.mkdtemp(prefix="ex-", dir=self.root)))

    def files(self) -> list[str]:
        found = []
        for directory, _, names in os.walk(self.root):
            for name in names:
                found.append(os.path.relpath(os.path.join(directory, name), self.root))
        return sorted(found)


def make_workspace() -> Workspace:
    return Workspace(Path(tempfile.mkdtemp(prefix="agt-", dir=workspace_base())).resolve())


def remove_workspace(workspace: Workspace) -> None:
    """Delete it even when a test left read-only directories behind."""

    def unlock(func: Any, path: str, _exc: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
            func(path)

    if sys.version_info >= (3, 12):
        shutil.rmtree(workspace.root, onexc=unlock)
    else:
        shutil.rmtree(workspace.root, onerror=unlock)
