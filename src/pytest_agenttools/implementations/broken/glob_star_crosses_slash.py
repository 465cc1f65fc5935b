"""glob translates ``*`` in a pattern with ``/`` to "anything", so ``src/*.py`` lists
``src/deep/c.py`` too: ``*`` must never cross a directory separator."""

import re
from collections.abc import Callable, Sequence

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import globmatch
from pytest_agenttools.implementations.reference.search_ops import GlobOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class StarCrossesSlash(GlobOps):
    def path_filter(self, user_globs: Sequence[str]) -> Callable[[bytes], bool] | None:
        wanted = [g for g in user_globs if not g.startswith("!") and globmatch.has_slash(g)]
        if not wanted:
            return None
        compiled = [
            re.compile(globmatch.compile_glob(g).pattern.replace("[^/]*", ".*")) for g in wanted
        ]
        return lambda raw: any(r.match(raw.decode("utf-8", "replace")) for r in compiled)


def create() -> ReferenceTools:
    return ReferenceTools(ops={"glob": StarCrossesSlash()})


BROKEN = Broken(
    caught_by={"GLOB-PAT-03"},
    suite_modules=["test_glob"],
    create=create,
)
