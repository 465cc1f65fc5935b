"""confine.files checked on the spelling: the normalised path must start with a root, and the
file is then opened by that name, following whatever links it holds."""

from __future__ import annotations

import contextlib
import os

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import confine
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class LexicalGuard(confine.FileGuard):
    def hold(
        self, path: str, *, write: bool, make_dirs: bool = False, missing_ok: bool = False
    ) -> confine.Held:
        path = os.path.normpath(path)
        if self._root_of(path) is None:
            raise self.outside(path, write=write)
        self._check(path, path, write=write)
        parent, name = os.path.split(path)
        if make_dirs:
            os.makedirs(parent, exist_ok=True)
        fds: list[int] = []
        try:
            fds.append(os.open(parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        except FileNotFoundError:
            if missing_ok:
                return confine.Held(-1, name, path, None, [])
            raise
        entry = None
        with contextlib.suppress(FileNotFoundError):
            entry = os.open(path, os.O_PATH | os.O_CLOEXEC)
            fds.append(entry)
        return confine.Held(fds[0], name, path, entry, fds)


def create() -> ReferenceTools:
    return ReferenceTools(confinement=confine.Confinement(guard=LexicalGuard))


BROKEN = Broken(
    caught_by={"READ-CONF-01"},
    suite_modules=["test_read_confine"],
    create=create,
)
