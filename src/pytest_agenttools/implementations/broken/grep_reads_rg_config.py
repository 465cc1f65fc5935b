"""grep and glob run rg without ``--no-config`` and with the call's environment, so a user's
RIPGREP_CONFIG_PATH adds ``--no-ignore``, ``--follow`` or ``--pre=<program>`` to every search."""

import os
from collections.abc import Mapping

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps, GrepOps, SearchOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class ReadsConfig(SearchOps):
    def base_flags(self) -> list[str]:
        return [flag for flag in super().base_flags() if flag != "--no-config"]

    def engine_env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        return dict(env if env is not None else os.environ)


class Grep(ReadsConfig, GrepOps):
    pass


class Glob(ReadsConfig, GlobOps):
    pass


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": Grep(), "glob": Glob()})


BROKEN = Broken(
    caught_by={"GREP-CONFIG-01", "GLOB-CONFIG-01"},
    suite_modules=["test_grep_filters", "test_glob_filters"],
    create=create,
)
