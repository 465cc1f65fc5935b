"""glob declares the gitignore dialect but reads patterns as bash does: ``*.py`` lists only the
top level and ``*`` skips dotfiles. Right for a tool that declares ``bash``; wrong for this one."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.search_ops import GlobOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


def create() -> ReferenceTools:
    return ReferenceTools(ops={"glob": GlobOps("bash")})


BROKEN = Broken(
    caught_by={"GLOB-PAT-04"},
    suite_modules=["test_glob"],
    create=create,
)
