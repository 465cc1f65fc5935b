"""glob declares the gitignore dialect but reads patterns as bash does: ``*.py`` lists only the
top level and ``*`` skips dotfiles. Right for a tool that declares ``bash``; wrong for this one."""

from pytest_agenttools.implementations.reference.search_ops import GlobOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_glob"]
CAUGHT_BY = {"GLOB-PAT-04"}


def create() -> ReferenceTools:
    return ReferenceTools(ops={"glob": GlobOps("bash")})
