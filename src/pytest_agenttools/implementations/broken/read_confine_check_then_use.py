"""confine.files resolves the path, checks the real path against the roots, and then opens it
by name again: a directory swapped for a link in between is followed. (The window is widened
by a millisecond so that the swap lands in it on every run, not on some.)"""

from __future__ import annotations

import os
import time

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.read_confine_lexical import LexicalGuard
from pytest_agenttools.implementations.reference import confine
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class CheckThenUse(LexicalGuard):
    def hold(
        self, path: str, *, write: bool, make_dirs: bool = False, missing_ok: bool = False
    ) -> confine.Held:
        real = os.path.realpath(path)
        if self._root_of(real) is None:
            raise self.outside(path, write=write)
        self._check(path, real, write=write)
        time.sleep(0.001)  # the window between the check and the use
        return super().hold(path, write=write, make_dirs=make_dirs, missing_ok=missing_ok)


def create() -> ReferenceTools:
    return ReferenceTools(confinement=confine.Confinement(guard=CheckThenUse))


BROKEN = Broken(
    caught_by={"READ-CONF-05", "WRITE-CONF-02"},
    suite_modules=["test_read_confine", "test_write_confine"],
    create=create,
)
